// Intl.PluralRules.prototype.selectRange for price and delivery ranges
// ("1–2 days", "2–5 jours", "1–2 дня"): CLDR's plural ranges pick the
// word of the range from the categories of its ends; a NaN or missing end
// and a BigInt are errors as in V8.
const items = await tools.users({ n: 6 });
const days = { en: { one: "day", other: "days" }, fr: { one: "jour", other: "jours" },
  ru: { one: "день", few: "дня", many: "дней", other: "дня" }, pl: { one: "dzień", few: "dni", many: "dni", other: "dnia" },
  ar: { zero: "يوم", one: "يوم", two: "يومان", few: "أيام", many: "يومًا", other: "يوم" } };
const ranges = [[0, 1], [1, 2], [2, 3], [2, 5], [5, 21], [21, 22], [1, 1.5], [0.5, 1], [11, 14], [1, 1e6], [3, 1]];
const out = {};
for (const [l, w] of Object.entries(days)) {
  const pr = new Intl.PluralRules(l);
  const nf = new Intl.NumberFormat(l);
  out[l] = ranges.map(([a, b]) => `${nf.format(a)}–${nf.format(b)} ${w[pr.selectRange(a, b)] ?? w.other}`);
}
out.items = items.map((it, i) => `${it.name}: ships in ${i + 1}–${i + 2} ${new Intl.PluralRules("en").selectRange(i + 1, i + 2) === "one" ? "day" : "days"}`);
out.ordinal = [[1, 2], [2, 3], [3, 4]].map(([a, b]) => new Intl.PluralRules("en", { type: "ordinal" }).selectRange(a, b)).join(",");
out.digits = new Intl.PluralRules("fr", { minimumFractionDigits: 1 }).selectRange(0, 1);
out.ptPT = [[0, 1], [1, 1], [1, 2]].map(([a, b]) => new Intl.PluralRules("pt-PT").selectRange(a, b)).join(",");
const errors = [];
const pr = new Intl.PluralRules("en");
for (const f of [() => pr.selectRange(1), () => pr.selectRange(undefined, 2), () => pr.selectRange(NaN, 2), () => pr.selectRange(1, "x"),
  () => pr.selectRange(1n, 2), () => pr.select(2n), () => Intl.PluralRules.prototype.selectRange.call(5, 1, 2),
  () => Intl.PluralRules.prototype.resolvedOptions.call("x")]) {
  try {
    errors.push(String(f()));
  } catch (e) {
    errors.push(`${e.name}: ${e.message}`);
  }
}
out.errors = errors;
out.shape = [typeof pr.selectRange, Intl.PluralRules.prototype.selectRange.length, Intl.PluralRules.prototype.selectRange.name,
  Object.keys(Intl.PluralRules.prototype).length];
return out;
