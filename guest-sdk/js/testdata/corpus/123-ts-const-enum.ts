const enum Unit { C = "°C", F = "°F" }
declare const externalThing: number;
function convert(c: number, unit: Unit): string {
  return unit === Unit.C ? `${c.toFixed(1)}${Unit.C}` : `${((c * 9) / 5 + 32).toFixed(1)}${Unit.F}`;
}
const w: { tempC: number } = await tools.weather({ city: "Mumbai" });
return [convert(w.tempC, Unit.C), convert(w.tempC, Unit.F)];
