// Unicode extension keys in every constructor: each keeps the keys it
// uses (NumberFormat nu, DateTimeFormat ca/hc/nu, Collator co/kf/kn,
// RelativeTimeFormat nu) and drops the others; canonical forms and
// supportedLocalesOf keep them all.
const tags = ["en-u-ca-gregory", "en-u-ca-gregory-nu-arab", "de-u-nu-latn-ca-gregory-hc-h23", "en-u-co-phonebk-nu-thai",
  "ar-EG-u-nu-latn", "ja-JP-u-ca-gregory-hc-h11-nu-fullwide", "fr-u-kn-kf-upper-nu-deva", "en-u-attr-nu-arab", "zh-u-nu-hanidec-co-stroke",
  "en-u-nu-arab-x-private", "de-DE-u-nu-ARAB", "EN-U-NU-THAI"];
const out = {};
const read = (C, tag, o) => {
  try {
    const r = new C(tag, o).resolvedOptions();
    return [r.locale, r.numberingSystem, r.calendar, r.hourCycle, r.collation].filter((x) => x !== undefined).join(" ");
  } catch (e) {
    return e.name + ": " + e.message;
  }
};
for (const tag of tags) {
  out[tag] = {
    canonical: Intl.getCanonicalLocales(tag),
    supported: Intl.NumberFormat.supportedLocalesOf([tag]),
    nf: read(Intl.NumberFormat, tag),
    dtf: read(Intl.DateTimeFormat, tag, { hour: "numeric" }),
    col: read(Intl.Collator, tag),
    rtf: read(Intl.RelativeTimeFormat, tag),
    pl: read(Intl.PluralRules, tag),
    lf: read(Intl.ListFormat, tag),
    seg: read(Intl.Segmenter, tag),
    text: [(1234.5).toLocaleString(tag), new Date(Date.UTC(2024, 0, 15, 13, 5)).toLocaleString(tag, { timeZone: "UTC" }),
      new Intl.RelativeTimeFormat(tag).format(2, "hour")].join(" | "),
  };
}
out.calendarOption = [["en", "gregory"], ["en-u-ca-gregory", "gregory"], ["en", "x"], ["en", ""], ["en", "a".repeat(9)], ["en", "GREGORY"]].map(([t, calendar]) =>
  read(Intl.DateTimeFormat, t, { calendar }));
out.fallback = [["xx-u-nu-arab"], ["de-u-nu-arab", "en"]].map((l) => read(Intl.NumberFormat, l));
console.log(out["en-u-ca-gregory-nu-arab"].text);
return out;
