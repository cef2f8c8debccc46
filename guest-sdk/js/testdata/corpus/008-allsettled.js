const cities = ["Berlin", "Atlantis", "Cairo", "El Dorado", "Seoul"];
const settled = await Promise.allSettled(cities.map((city) => tools.weather({ city })));
const ok = [], failed = [];
settled.forEach((r, i) => {
  if (r.status === "fulfilled") ok.push(`${cities[i]}: ${r.value.tempC}°C`);
  else failed.push(`${cities[i]} (${r.reason.reason}: ${r.reason.message})`);
});
console.log("ok:", ok.join(", "));
console.warn("failed:", failed.join("; "));
return { ok: ok.length, failed: failed.length };
