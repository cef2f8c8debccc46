const mirrors = ["Atlantis", "Mu", "Lemuria"];
try {
  await Promise.any(mirrors.map((city) => tools.weather({ city })));
} catch (e) {
  console.log(e.constructor.name, e.errors.length);
  const first = await Promise.any([tools.weather({ city: "Mu" }), tools.delay({ ms: 10, value: "fallback" })]);
  return { name: e.name, count: e.errors.length, reasons: e.errors.map((x) => x.message), first, isAgg: e instanceof AggregateError };
}
