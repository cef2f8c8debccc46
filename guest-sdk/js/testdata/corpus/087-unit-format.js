const w = await tools.weather({ city: "São Paulo" });
return {
  temp: new Intl.NumberFormat("en-US", { style: "unit", unit: "celsius" }).format(w.tempC),
  wind: new Intl.NumberFormat("en-GB", { style: "unit", unit: "kilometer-per-hour", unitDisplay: "long" }).format(w.windKph),
  windDe: new Intl.NumberFormat("de-DE", { style: "unit", unit: "kilometer-per-hour" }).format(w.windKph),
  size: new Intl.NumberFormat("en-US", { style: "unit", unit: "megabyte", maximumFractionDigits: 1 }).format(204.8),
  pct: new Intl.NumberFormat("pt-BR", { style: "unit", unit: "percent" }).format(w.humidity),
  narrow: new Intl.NumberFormat("ja-JP", { style: "unit", unit: "liter", unitDisplay: "narrow" }).format(3),
};
