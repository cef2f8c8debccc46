type Level = "info" | "warn" | "error";
const log = (level: Level, msg: string, data?: Record<string, unknown>): void => {
  const line = data ? `${msg} ${JSON.stringify(data)}` : msg;
  if (level === "info") console.info(line);
  else if (level === "warn") console.warn(line);
  else console.error(line);
};
const weather: { city: string; tempC: number } = await tools.weather({ city: "Seoul" });
log("info", "fetched", { city: weather.city });
if (weather.tempC < 0) log("warn", `freezing in ${weather.city}`);
log("error", "sample error");
console.log({ weather, list: [1, 2, 3] as number[] });
return weather.tempC;
