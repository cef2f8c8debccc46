const items = await tools.big({ n: 2000 });
const onSale = items.filter((i) => i.tags.includes("sale")).length;
const totalValue = items.reduce((s, i) => s + i.price * i.stock, 0);
const pct = new Intl.NumberFormat("en-US", { style: "percent", maximumFractionDigits: 1 });
const compact = new Intl.NumberFormat("en-US", { notation: "compact", compactDisplay: "short" });
const compactDe = new Intl.NumberFormat("de-DE", { notation: "compact", compactDisplay: "long" });
const sig = new Intl.NumberFormat("en-US", { maximumSignificantDigits: 3 });
return {
  onSale: pct.format(onSale / items.length),
  value: compact.format(totalValue),
  valueDe: compactDe.format(totalValue),
  valueJa: new Intl.NumberFormat("ja-JP", { notation: "compact" }).format(totalValue),
  sig: sig.format(totalValue),
  minFrac: new Intl.NumberFormat("fr-FR", { minimumFractionDigits: 2 }).format(1500),
  noGroup: new Intl.NumberFormat("en-US", { useGrouping: false }).format(1234567.5),
};
