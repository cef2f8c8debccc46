const w = await tools.weather({ city: "Tokyo" });
console.log(JSON.stringify(w, null, 2));
console.log(JSON.stringify({ when: new Date("2024-01-02T03:04:05Z"), list: [1, "a", null, undefined, () => 1] }));
console.log(JSON.stringify(w, ["city", "tempC"], "\t"));
return JSON.stringify({ a: 1, b: [1, 2] }, (k, v) => (typeof v === "number" ? v * 10 : v));
