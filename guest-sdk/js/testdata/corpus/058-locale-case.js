const cities = ["istanbul", "izmir", "DİYARBAKIR", "straße", "ĳssel"];
return cities.map((c) => ({
  c,
  upper: c.toUpperCase(),
  trUpper: c.toLocaleUpperCase("tr-TR"),
  trLower: c.toLocaleLowerCase("tr-TR"),
  lower: c.toLowerCase(),
}));
