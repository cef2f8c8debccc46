// Intl.DisplayNames: language (dialect and standard), region, script,
// currency, calendar and date field names in several locales and styles, fallbacks and errors.
const langs = ["en", "en-US", "en-GB", "en-AU", "fr", "fr-CA", "fr-CH", "de", "de-AT", "de-CH", "es", "es-419", "es-MX", "pt", "pt-BR", "pt-PT",
  "zh", "zh-Hans", "zh-Hant", "zh-TW", "zh-Hant-HK", "ja", "ko", "ar", "ar-001", "hi", "ru", "nl-BE", "sr-Cyrl", "sr-Latn-RS", "yue",
  "haw", "fil", "en-Latn-US", "xx", "xx-YY", "EN-gb", "iw", "de-1996", "en-ZZ", "mn-Mong", "tlh"];
const regions = ["US", "GB", "DE", "CN", "HK", "MO", "TW", "419", "001", "150", "EU", "UN", "XK", "CI", "ZZ", "AA", "gb", "BA", "MK", "PS"];
const scripts = ["Latn", "Cyrl", "Hans", "Hant", "Arab", "Deva", "Jpan", "Kore", "Zyyy", "Qaaa", "latn"];
const currencies = ["USD", "EUR", "JPY", "GBP", "CNY", "INR", "XOF", "BTN", "usd", "XYZ", "CHF", "MXN"];
const out = {};
for (const loc of ["en", "en-GB", "de", "fr", "ja", "zh-Hant", "ar", "ru"]) {
  const o = {};
  for (const style of ["long", "short"]) {
    const dn = (type, extra) => new Intl.DisplayNames(loc, { type, style, ...extra });
    const names = (list, f) => list.map((c) => f.of(c)).join(" | ");
    o[style] = {
      dialect: names(langs, dn("language")),
      standard: names(langs, dn("language", { languageDisplay: "standard" })),
      region: names(regions, dn("region")),
      script: names(scripts, dn("script")),
      currency: names(currencies, dn("currency")),
      calendar: names(["gregory", "japanese", "islamic-civil", "ethioaa", "iso8601", "roc", "buddhist", "chinese", "islamicc", "abc-def"], dn("calendar")),
      fields: names(["era", "year", "quarter", "month", "weekOfYear", "weekday", "day", "dayPeriod", "hour", "minute", "second", "timeZoneName"], dn("dateTimeField")),
      narrowFields: names(["era", "year", "weekday", "dayPeriod", "timeZoneName"], new Intl.DisplayNames(loc, { type: "dateTimeField", style: "narrow" })),
      none: ["xx", "AA", "Qaaa", "XYZ"].map((c, i) => String(dn(["language", "region", "script", "currency"][i], { fallback: "none" }).of(c))).join(" | "),
    };
  }
  out[loc] = o;
}
const errors = [];
for (const f of [() => new Intl.DisplayNames("en"), () => new Intl.DisplayNames("en", {}), () => new Intl.DisplayNames("en", { type: "x" }),
  () => new Intl.DisplayNames("en", { type: "region", style: "x" }), () => new Intl.DisplayNames("en", { type: "region", fallback: "x" }),
  () => new Intl.DisplayNames("en", { type: "region", languageDisplay: "x" }), () => new Intl.DisplayNames("en", { type: "region" }).of("1"),
  () => new Intl.DisplayNames("en", { type: "script" }).of("Lat"), () => new Intl.DisplayNames("en", { type: "currency" }).of("US"),
  () => new Intl.DisplayNames("en", { type: "language" }).of("en-"), () => new Intl.DisplayNames("en", { type: "language" }).of(""),
  () => new Intl.DisplayNames("en", { type: "language" }).of(), () => new Intl.DisplayNames("en", { type: "calendar" }).of("x"),
  () => new Intl.DisplayNames("en", { type: "calendar" }).of("gregorian"), () => new Intl.DisplayNames("en", { type: "dateTimeField" }).of("week"),
  () => new Intl.DisplayNames("en", { type: "dateTimeField" }).of("Year"), () => Intl.DisplayNames("en", { type: "region" }),
  () => new Intl.DisplayNames("en", { type: "language" }).of("en-u-nu-arab"),
  () => JSON.stringify(new Intl.DisplayNames("de-u-nu-arab", { type: "language", style: "narrow" }).resolvedOptions()),
  () => JSON.stringify(new Intl.DisplayNames("fr", { type: "currency", languageDisplay: "standard" }).resolvedOptions()),
  () => Intl.DisplayNames.supportedLocalesOf(["de-AT", "xx"]), () => Object.prototype.toString.call(new Intl.DisplayNames("en", { type: "region" }))]) {
  try { errors.push(String(f())); } catch (e) { errors.push(e.name + ": " + e.message); }
}
out.errors = errors;
console.log(new Intl.DisplayNames("en", { type: "region" }).of("DE"));
return out;
