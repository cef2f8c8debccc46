const w = await tools.weather({ city: "Berlin" });
const summary = {
  city: w.city,
  temp: w.tempC,
  wind: w.wind.speed,
};
return summary;
