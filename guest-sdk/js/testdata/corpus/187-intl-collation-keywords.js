// Collator's -u-co-, -u-kn- and -u-kf- keywords and the collation, numeric
// and caseFirst options: resolvedOptions and the order they give.
const words = ["Müller", "Mueller", "Muller", "Mahler", "müde", "Zürich", "Zebra", "ärgern", "Aerger", "item10", "Item2", "item2", "a", "B", "b", "A"];
const out = [];
for (const [tag, o] of [["de"], ["de-u-co-phonebk"], ["de", { collation: "phonebk" }], ["de-u-co-phonebk", { collation: "standard" }],
  ["de-DE-u-co-phonebk"], ["en-u-co-phonebk"], ["de-u-co-foo"], ["en-u-co-search"], ["de", { collation: "search" }],
  ["en-u-kn"], ["en-u-kn-true"], ["en-u-kn-false"], ["en-u-kn-yes"], ["en-u-kn", { numeric: false }], ["en-u-kn-false", { numeric: true }],
  ["en-u-kf-upper"], ["en-u-kf-lower"], ["en-u-kf-false"], ["en-u-kf-upper", { caseFirst: "lower" }], ["en", { caseFirst: "upper" }],
  ["en-u-co-phonebk-kn-kf-upper"], ["de-u-kn-co-phonebk"], ["zh-u-co-stroke"], ["en-u-kf-x"], ["en", { collation: "x" }],
  ["en", { collation: "" }], ["en", { collation: "a".repeat(9) }], ["de-u-ca-japanese-co-phonebk-nu-arab"]]) {
  try {
    const c = new Intl.Collator(tag, o);
    const r = c.resolvedOptions();
    out.push(`${tag} ${JSON.stringify(o)}: ${r.locale} ${r.collation} ${r.numeric} ${r.caseFirst} | ${[...words].sort(c.compare).join(" ")}`);
  } catch (e) {
    out.push(`${tag} ${JSON.stringify(o)}: ${e.name}: ${e.message}`);
  }
}
out.push(["item10", "item9"].sort((a, b) => a.localeCompare(b, "en-u-kn")).join());
out.push("a".localeCompare("B", "en-u-kf-upper"), "Müller".localeCompare("Mueller", "de-u-co-phonebk"));
console.log(out[1]);
return out;
