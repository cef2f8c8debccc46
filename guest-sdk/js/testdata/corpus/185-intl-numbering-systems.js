// The -u-nu- keyword and the numberingSystem option in NumberFormat,
// DateTimeFormat and RelativeTimeFormat: digits, symbols, resolvedOptions.
const systems = ["latn", "arab", "arabext", "deva", "beng", "thai", "fullwide", "hanidec", "mymr", "tibt", "roman", "jpan", "foo"];
const out = {};
for (const base of ["en", "de", "ar-EG", "ar", "hi", "zh", "ja"]) {
  for (const nu of systems) {
    const tag = `${base}-u-nu-${nu}`;
    const nf = new Intl.NumberFormat(tag);
    const r = nf.resolvedOptions();
    out[tag] = [r.locale, r.numberingSystem, nf.format(-1234567.891), new Intl.NumberFormat(tag, { style: "percent" }).format(0.256),
      new Intl.NumberFormat(tag, { signDisplay: "always" }).format(42), (12345n).toLocaleString(tag),
      new Intl.DateTimeFormat(tag, { dateStyle: "short", timeStyle: "short", timeZone: "UTC" }).format(Date.UTC(2024, 0, 15, 9, 5)),
      new Intl.RelativeTimeFormat(tag).format(-3, "day"), new Intl.DateTimeFormat(tag).resolvedOptions().numberingSystem].join(" | ");
  }
}
const opt = [];
for (const [tag, numberingSystem] of [["en", "arab"], ["en-u-nu-arab", "arab"], ["en-u-nu-thai", "arab"], ["en-u-nu-thai", "foo"],
  ["ar-EG", "latn"], ["ar-EG-u-nu-latn", "arab"], ["en", "ARAB"], ["en", "latn-arab"], ["en", "x"], ["en", "a".repeat(9)], ["en", ""], ["en", "roman"]]) {
  for (const C of [Intl.NumberFormat, Intl.DateTimeFormat, Intl.RelativeTimeFormat]) {
    try {
      const r = new C(tag, { numberingSystem }).resolvedOptions();
      opt.push(`${C.name} ${tag} ${numberingSystem}: ${r.locale} ${r.numberingSystem}`);
    } catch (e) {
      opt.push(`${C.name} ${tag} ${numberingSystem}: ${e.name}: ${e.message}`);
    }
  }
}
out.options = opt;
out.parts = new Intl.NumberFormat("ar-EG-u-nu-latn", { style: "percent" }).formatToParts(-1234.5);
out.dtParts = new Intl.DateTimeFormat("en-u-nu-deva", { hour: "numeric", minute: "numeric", timeZone: "UTC" }).formatToParts(0);
console.log(out["en-u-nu-arab"]);
return out;
