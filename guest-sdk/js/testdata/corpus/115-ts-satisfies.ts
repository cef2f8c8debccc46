type Threshold = { warn: number; crit: number };
const thresholds = {
  tempC: { warn: 25, crit: 32 },
  humidity: { warn: 80, crit: 90 },
} satisfies Record<string, Threshold>;
type Metric = keyof typeof thresholds;
const level = (m: Metric, v: number): "ok" | "warn" | "crit" => (v >= thresholds[m].crit ? "crit" : v >= thresholds[m].warn ? "warn" : "ok");
const data = await Promise.all(["Cairo", "Mumbai", "Berlin", "São Paulo"].map((city) => tools.weather({ city })));
return data.map((w: any) => ({ city: w.city, temp: level("tempC", w.tempC), humidity: level("humidity", w.humidity) }));
