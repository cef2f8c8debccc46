const items = await tools.big({ n: 300 });
const stockValue = items.reduce((s, i) => s + i.price * i.stock, 0);
const n = Math.round(stockValue * 1000) / 1000;
return {
  default: n.toLocaleString(),
  enUS: n.toLocaleString("en-US", { maximumFractionDigits: 2 }),
  deDE: n.toLocaleString("de-DE"),
  frFR: n.toLocaleString("fr-FR"),
  hiIN: n.toLocaleString("hi-IN"),
  arEG: n.toLocaleString("ar-EG"),
  esES: (1234.5).toLocaleString("es-ES"),
  count: items.length.toLocaleString("en-US"),
};
