// Comparisons by collation keys (cached in the guest) against Node's ICU:
// mixed case, accents, digits and punctuation, every sensitivity, numeric,
// caseFirst and ignorePunctuation, several locales, the same strings under
// different options interleaved, and the strings keys are not used for
// (lone surrogates, sensitivity "case", caseFirst "upper" and
// ignorePunctuation aside: the host's collation differs from ICU's there,
// whether it compares strings or keys; intl's TestKeysOrderAsCompare
// checks that keys order as the host compares, for every option).
const words = ["apple", "Apple", "APPLE", "äpple", "Äpple", "apfel", "résumé", "resume", "Resume", "résume", "cote", "côte",
  "coté", "côté", "file10", "file2", "file1", "File1", "a-b", "ab", "a b", "a_b", "a.b", "zebra", "Zebra", "ß", "ss", "SS",
  "straße", "strasse", "Ångström", "angstrom", "Æble", "aeble", "øre", "ore", "ñandú", "nandu", "çà", "ca", "ı", "i", "I",
  "İ", "", " ", "0", "00", "9", "10", "-1", "__proto__", "constructor", "toString", "hasOwnProperty", "x\u0000y", "x",
  "😀", "😀a", "e\u0301", "é", "ǅ", "ǆ", "Ǆ", "Ⅻ", "xii", "ｆｕｌｌ", "full", "𝒜", "A"];
const opts = [undefined, { sensitivity: "base" }, { sensitivity: "accent" }, { sensitivity: "variant" },
  { numeric: true }, { caseFirst: "lower" }, { sensitivity: "base", numeric: true }, { usage: "search" }];
const locales = [undefined, "sv"];
const out = [];
for (const l of locales) {
  for (const o of opts) {
    const c = new Intl.Collator(l, o);
    // A Collator's compare sorts by keys; an arrow around it compares
    // one pair at a time; localeCompare with the same arguments too.
    const byCompare = [...words].sort(c.compare);
    const byArrow = [...words].sort((a, b) => c.compare(a, b));
    const byLocale = o === undefined || o.numeric ? [...words].sort((a, b) => a.localeCompare(b, l, o)) : byCompare;
    out.push(`${l} ${JSON.stringify(o)}: ${JSON.stringify(byCompare)}`);
    out.push(String(JSON.stringify(byArrow) === JSON.stringify(byCompare)) + (JSON.stringify(byLocale) === JSON.stringify(byCompare)));
    out.push(words.map((w, i) => c.compare(w, words[(i * 7 + 3) % words.length])).join(""));
  }
}
// The default localeCompare, interleaved with options on the same strings.
const inter = [];
for (let i = 0; i < words.length; i++) {
  const a = words[i], b = words[(i * 5 + 1) % words.length];
  inter.push(a.localeCompare(b), a.localeCompare(b, "sv"), a.localeCompare(b, undefined, { sensitivity: "base" }),
    a.localeCompare(b, "de", { numeric: true }), b.localeCompare(a));
}
out.push(inter.join(","));
// Strings too long for keys are compared by the host.
const long = "b".repeat(1100);
out.push(JSON.stringify(["c", long + "a", "a" + long, "B", long].sort(new Intl.Collator().compare).map((s) => s.length)));
out.push([long + "a", "a" + long, long].map((s) => s.localeCompare(long)).join());
// Sorting with a Collator's compare: stable for equal keys, holes and
// undefined last, other values converted, objects by their string.
const base = new Intl.Collator("en", { sensitivity: "base" });
out.push(JSON.stringify(["b", "A", "a", "á", "B", "Á", "à"].sort(base.compare)));
const holes = ["b", , "a", undefined, "C"];
holes.sort(new Intl.Collator().compare);
out.push(JSON.stringify(holes), holes.length, 1 in holes, 4 in holes);
out.push(JSON.stringify([3, 10, 1, "2", null, true].sort(new Intl.Collator().compare)));
out.push(JSON.stringify([{ toString: () => "b" }, { toString: () => "a" }].sort(new Intl.Collator().compare).map(String)));
const same = new Intl.Collator().compare;
out.push(same === new Intl.Collator().compare, typeof same, same.length, [].sort(same).length);
out.push(JSON.stringify(Array.from({ length: 300 }, (_, i) => "w" + ((i * 7919) % 300)).sort(same).slice(0, 12)));
try { new Intl.Collator("en-").compare("a", "b"); } catch (e) { out.push(e.name + ": " + e.message); }
try { "a".localeCompare("b", "en-"); } catch (e) { out.push(e.name + ": " + e.message); }
try { "a".localeCompare("a", "en-"); } catch (e) { out.push(e.name + ": " + e.message); }
out.push(Array.prototype.sort.name, Array.prototype.sort.length);
console.log(out.length);
return out;
