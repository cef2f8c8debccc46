const cities = ["Berlin", "Paris", "Tokyo", "London", "New York", "São Paulo", "Madrid", "Cairo", "Mumbai", "Seoul"];
const data = await Promise.all(cities.map((city) => tools.weather({ city })));
const icon = { sunny: "☀️", rain: "🌧️", cloudy: "☁️", storm: "⛈️", snow: "❄️", humid: "💧" };
const toF = (c) => (c * 9) / 5 + 32;
const md = [
  "## Weather report",
  "",
  "| City | °C | °F | Humidity | |",
  "|:--|--:|--:|--:|:-:|",
  ...data.map((w) => `| ${w.city} | ${w.tempC.toFixed(1)} | ${toF(w.tempC).toFixed(1)} | ${w.humidity}% | ${icon[w.condition] ?? "?"} |`),
  "",
  `_Average: ${(data.reduce((s, w) => s + w.tempC, 0) / data.length).toFixed(2)} °C_`,
].join("\n");
return md;
