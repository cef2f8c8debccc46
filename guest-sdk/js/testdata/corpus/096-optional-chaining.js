const settled = await Promise.allSettled(["Paris", "Gotham"].map((city) => tools.weather({ city })));
const values = settled.map((s) => s.value);
return values.map((v) => ({
  city: v?.city ?? "unknown",
  temp: v?.tempC ?? null,
  alert: v?.alerts?.[0]?.title ?? "none",
  windy: (v?.windKph ?? 0) > 8 || false,
}));
