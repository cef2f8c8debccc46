const events = await tools.events();
const when = new Date(events[0].start);
const locales = ["en-US", "en-GB", "de-DE", "fr-FR", "es-ES", "it-IT", "pt-BR", "ja-JP", "zh-CN", "ko-KR", "hi-IN", "ar-EG", "tr-TR"];
const out = {};
for (const loc of locales) {
  out[loc] = new Intl.DateTimeFormat(loc, { dateStyle: "full", timeStyle: "short", timeZone: "UTC" }).format(when);
}
console.log(out["en-US"]);
return out;
