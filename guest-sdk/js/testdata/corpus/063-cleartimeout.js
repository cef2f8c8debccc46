const fired = [];
const a = setTimeout(() => fired.push("a"), 20);
const b = setTimeout(() => fired.push("b"), 40);
clearTimeout(a);
const weather = await tools.weather({ city: "London" });
await new Promise((r) => setTimeout(r, 70));
clearTimeout(b);
return { fired, city: weather.city };
