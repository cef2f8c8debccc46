const weather = await tools.weather({ city: "Madrid" });
const [first, second] = weather;
return { first, second };
