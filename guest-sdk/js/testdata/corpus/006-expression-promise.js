tools.weather({ city: "Paris" })
