// Number symbols of many locales (regions and scripts of the linked
// languages): decimal and group separators, percent, signs, NaN, exponent,
// grouping sizes, compact patterns, read back through formatToParts.
const locales = ["fr-CH", "fr-BE", "fr-CA", "fr-LU", "fr-MA", "de-AT", "de-CH", "de-LI", "de-LU", "it-CH", "es-AR", "es-MX",
  "es-CO", "es-CR", "es-419", "es-US", "pt-AO", "pt-MZ", "pt-CV", "pt-PT", "nl-BE", "nl-SR", "sv-FI", "ru-UA", "ru-KZ",
  "pl", "tr", "ar", "ar-SA", "ar-MA", "ar-DZ", "ar-TN", "ar-LB", "ar-IQ", "hi", "zh-HK", "zh-TW", "zh-Hant",
  "zh-SG", "zh-MY", "ja", "ko", "en-ZA", "en-SE", "en-DK", "en-CH", "en-AT", "en-IN", "en-NZ", "en-150", "en-001"];
const pick = (parts, type) => parts.filter((p) => p.type === type).map((p) => p.value).join("|");
const out = {};
for (const l of locales) {
  const nf = new Intl.NumberFormat(l);
  const parts = nf.formatToParts(-1234567.891);
  out[l] = {
    locale: nf.resolvedOptions().locale,
    nu: nf.resolvedOptions().numberingSystem,
    decimal: pick(parts, "decimal"), group: pick(parts, "group"), minus: pick(parts, "minusSign"),
    plus: pick(new Intl.NumberFormat(l, { signDisplay: "always" }).formatToParts(1), "plusSign"),
    percent: new Intl.NumberFormat(l, { style: "percent" }).format(-0.1234),
    bigPercent: new Intl.NumberFormat(l, { style: "percent" }).format(12345.6),
    nan: new Intl.NumberFormat(l).format(NaN), inf: new Intl.NumberFormat(l).format(-Infinity),
    sci: new Intl.NumberFormat(l, { notation: "scientific" }).format(-0.000123),
    compact: [1234, 56789, 1234567, 9e9, 1.5e13].map((v) => new Intl.NumberFormat(l, { notation: "compact" }).format(v)).join(" "),
    compactLong: [1234, 1234567].map((v) => new Intl.NumberFormat(l, { notation: "compact", compactDisplay: "long" }).format(v)).join(" "),
    small: [1234, 12345, 0.5, 1e21].map((v) => v.toLocaleString(l)).join(" "),
    bigint: (-(10n ** 20n)).toLocaleString(l),
    min2: new Intl.NumberFormat(l, { useGrouping: "min2" }).format(1234),
  };
}
console.log(out["fr-CH"].small);
return out;
