const w = await tools.weather({ city: "Cairo" });
if (w.tempC > 30) {
  throw `too hot in ${w.city}: ${w.tempC}`;
}
return w;
