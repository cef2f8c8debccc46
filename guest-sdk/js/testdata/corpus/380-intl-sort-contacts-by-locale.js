// A model-style task: a contact list with names in several scripts, sorted
// for each office's locale with localeCompare and with a Collator, as a
// model would to print a directory. Each locale puts its own script first
// (Cyrillic in Russian, Han in Chinese, Hangul in Korean, Kana and kanji
// after Latin in Japanese), and a Collator reports the locale it resolved.
const contacts = [
  "Zoe Adams", "alice Brown", "Émile Dubois", "Иван Петров", "Анна Смирнова",
  "张伟", "王芳", "李娜", "陈静", "김민준", "이서연", "박지훈",
  "さくら", "タナカ", "山田太郎", "Γιώργος Παπαδόπουλος", "محمد علي",
  "דוד כהן", "राहुल शर्मा", "สมชาย ใจดี", "Ølstad", "Åberg", "Ähnlich",
];
const offices = ["en-US", "ru-RU", "zh-CN", "zh-TW", "ko-KR", "ja-JP", "el-GR", "ar-EG", "he-IL", "hi-IN", "th-TH", "sv-SE", "de-DE"];
const directory = {};
for (const office of offices) {
  const collator = new Intl.Collator(office);
  const sorted = [...contacts].sort(collator.compare);
  const viaLocaleCompare = [...contacts].sort((a, b) => a.localeCompare(b, office));
  if (sorted.join("|") !== viaLocaleCompare.join("|")) throw new Error(`orders differ in ${office}`);
  directory[office] = { locale: collator.resolvedOptions().locale, first: sorted.slice(0, 4), last: sorted.at(-1) };
}
console.log("Seoul office:", [...contacts].sort(new Intl.Collator("ko").compare).slice(0, 5).join(", "));
console.log("Moscow office:", [...contacts].sort((a, b) => a.localeCompare(b, "ru")).slice(0, 3).join(", "));
const byLocale = ["eu", "de-AT", "pt-BR", "sr-Latn-RS", "zh-HK", "es-419"].map((l) => new Intl.Collator(l).resolvedOptions().locale);
return { directory, byLocale, stroke: ["王", "李", "张", "ㄅ", "a"].sort(new Intl.Collator("zh-u-co-stroke").compare) };
