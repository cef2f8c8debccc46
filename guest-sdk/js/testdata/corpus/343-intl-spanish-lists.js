// Spanish lists as a recommendation message would write them: "y" turns
// into "e" before an i sound ("agua e hilo", but "queso y hielo") and "o"
// into "u" before an o sound ("siete u ocho", "uno u once"), in es, es-MX
// and es-419, conjunctions and disjunctions, every style.
const users = await tools.users({ n: 4 });
const menus = [["pan", "vino", "iglesia"], ["agua", "hilo"], ["queso", "hielo"], ["café", "Hierro"], ["arroz", "Italia"],
  ["siete", "ocho"], ["uno", "once"], ["diez", "11"], ["diez", "11 años"], ["mujer", "hombre"], ["playa", "hotel"], ["tren", "8"],
  ["avión", "ópera"], ["lunes", "huevos"], ["sol", "oso", "Oslo"], ["perro", "ídolo"], [users[0].name, "Ignacio"], [users[1].name, "Olga"]];
const out = {};
for (const l of ["es", "es-MX", "es-419"]) {
  for (const type of ["conjunction", "disjunction"]) {
    for (const style of ["long", "short", "narrow"]) {
      const lf = new Intl.ListFormat(l, { type, style });
      out[`${l} ${type} ${style}`] = menus.map((m) => lf.format(m));
    }
  }
}
out.parts = new Intl.ListFormat("es", { type: "disjunction" }).formatToParts(["siete", "ocho"]);
out.empty = new Intl.ListFormat("es").formatToParts(["pan", ""]);
out.greeting = `Hola ${new Intl.ListFormat("es").format(users.map((u) => u.name).concat("Inés"))}`;
console.log(out["es conjunction long"].join("\n"));
return out;
