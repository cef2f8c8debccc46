// An API endpoint validates the locale preferences clients send (a tag
// plus overrides), reports each bad one with the error the runtime gives,
// and stores the canonical and the minimized tag; then it builds the
// Accept-Language list for upstream calls from the accepted ones.
const requests = [
  { user: "u1", tag: "EN-gb", options: { hourCycle: "h23" } },
  { user: "u2", tag: "en_GB" },
  { user: "u3", tag: "zh", options: { script: "Hant", region: "tw" } },
  { user: "u4", tag: "de-DE-u-co-phonebk", options: { collation: "standard", numeric: true } },
  { user: "u5", tag: "pt", options: { region: "Brazil" } },
  { user: "u6", tag: "es-419", options: { hourCycle: "24h" } },
  { user: "u7", tag: "", options: {} },
  { user: "u8", tag: "in-ID" },
  { user: "u9", tag: "tl", options: { calendar: "islamic-umalqura" } },
  { user: "u10", tag: "ko-KR", options: { caseFirst: "upper", numberingSystem: "kore" } },
  { user: "u11", tag: "x-klingon" },
  { user: "u12", tag: "sr-Latn-CS" },
  { user: "u13", tag: "en", options: { language: "fr", region: "CA", calendar: "gregory" } },
  { user: "u14", tag: "ar", options: { numberingSystem: "ar" } },
];
const accepted = [], rejected = [];
for (const { user, tag, options } of requests) {
  try {
    const loc = new Intl.Locale(tag, options);
    accepted.push({
      user,
      canonical: loc.toString(),
      stored: loc.minimize().toString(),
      language: loc.language,
      region: loc.maximize().region,
      numeric: loc.numeric,
      collation: loc.collation ?? "default",
      caseFirst: loc.caseFirst ?? null,
      numberingSystem: loc.numberingSystem ?? loc.numberingSystems[0],
    });
  } catch (e) {
    rejected.push({ user, error: e.constructor.name, message: e.message });
  }
}
console.log(`accepted ${accepted.length}, rejected ${rejected.length}`);
for (const r of rejected) console.log(`  ${r.user}: ${r.error}: ${r.message}`);
const acceptLanguage = Intl.getCanonicalLocales(accepted.map((a) => new Intl.Locale(a.canonical).baseName))
  .map((t, i) => (i === 0 ? t : `${t};q=${Math.max(0.1, 1 - i / 10).toFixed(1)}`)).join(", ");
console.log(acceptLanguage);
const calls = [];
try { Intl.Locale("en"); } catch (e) { calls.push(e.message); }
try { new Intl.Locale(42); } catch (e) { calls.push(e.message); }
try { new Intl.Locale("en", null); } catch (e) { calls.push(e.message); }
try { Intl.Locale.prototype.maximize.call({ toString: () => "en" }); } catch (e) { calls.push(e.message); }
return { accepted, rejected, acceptLanguage, calls };
