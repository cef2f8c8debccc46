// Ordinal suffixes from Intl.PluralRules({type: "ordinal"}): a leaderboard
// in English ("1st", "2nd", "3rd", "11th", "21st", "112th"), Swedish
// ("1:a", "2:a", "3:e") and Italian ("l'8º" uses the "many" form), and
// each language's ordinal categories.
const users = await tools.users({ n: 25 });
const board = users.slice().sort((a, b) => b.score - a.score || a.id - b.id);
const en = new Intl.PluralRules("en-US", { type: "ordinal" });
const suffix = { one: "st", two: "nd", few: "rd", other: "th" };
const lines = board.map((u, i) => `${i + 1}${suffix[en.select(i + 1)]} ${u.name} (${u.score})`);
const ranks = [];
for (let n = 0; n <= 125; n++) ranks.push(n + suffix[en.select(n)]);
for (const n of [1000, 1001, 1002, 1003, 1011, 1012, 1013, 100000, 1e6 + 2]) ranks.push(n + suffix[en.select(n)]);
const sv = new Intl.PluralRules("sv", { type: "ordinal" });
const it = new Intl.PluralRules("it", { type: "ordinal" });
const cats = {};
for (const l of ["en", "sv", "it", "fr", "hi", "de", "ar", "ja"]) {
  cats[l] = new Intl.PluralRules(l, { type: "ordinal" }).resolvedOptions().pluralCategories;
}
return {
  lines,
  ranks: ranks.join(" "),
  sv: [1, 2, 3, 11, 12, 21, 22, 101].map((n) => n + (sv.select(n) === "one" ? ":a" : ":e")).join(" "),
  it: [1, 8, 11, 80, 800, 801, 88].map((n) => `${n}:${it.select(n)}`).join(" "),
  hi: [1, 2, 3, 4, 5, 6, 7].map((n) => new Intl.PluralRules("hi", { type: "ordinal" }).select(n)).join(","),
  cats,
};
