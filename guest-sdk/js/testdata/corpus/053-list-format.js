const results = await Promise.all(["Berlin", "Paris", "Madrid", "Tokyo"].map((city) => tools.weather({ city })));
const sunny = results.filter((w) => w.condition === "sunny").map((w) => w.city);
const all = results.map((w) => w.city);
return {
  en: new Intl.ListFormat("en", { style: "long", type: "conjunction" }).format(sunny),
  enOr: new Intl.ListFormat("en-GB", { type: "disjunction" }).format(all),
  de: new Intl.ListFormat("de-DE").format(all),
  ja: new Intl.ListFormat("ja-JP").format(all),
  es: new Intl.ListFormat("es-ES").format(sunny),
};
