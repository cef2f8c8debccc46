interface Weather {
  city: string;
  tempC: number;
  condition: "sunny" | "rain" | "cloudy" | "storm" | "snow" | "humid";
  humidity: number;
  windKph: number;
}

const cities: string[] = ["Berlin", "Tokyo", "Madrid", "Seoul"];
const results: Weather[] = await Promise.all(cities.map((city) => tools.weather({ city }) as Promise<Weather>));
const warm: Weather[] = results.filter((w: Weather): boolean => w.tempC > 15);
console.log(`warm: ${warm.map((w) => w.city).join(", ")}`);
return { warm: warm.length, coldest: results.reduce((a, b) => (a.tempC < b.tempC ? a : b)).city };
