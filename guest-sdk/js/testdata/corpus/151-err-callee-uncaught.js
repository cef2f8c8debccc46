// An uncaught "not a function" from an outer call whose last argument is a
// call that returned: V8 names the outer callee and places the fault there.
const summary = { count: 0 };
const seen = new Set();
const words = ["alpha", "beta", "gamma"];
const lines = [];
for (const w of words) {
  seen.add(w.toUpperCase());
  lines.push(w.padEnd(8, ".") + String(w.length));
}
class Report {
  constructor() {
    this.items = [];
  }
  add(x) {
    this.items.push(x);
    return this;
  }
}
const r = new Report();
r.add(lines.join("|")).add(JSON.stringify([...seen]));
console.log(r.items);
async function main() {
  const rows = await tools.users({ n: 3 });
  for (const u of rows) {
    console.log(u.name.padStart(20), seen.has(u.name.toUpperCase()));
  }
  summary.count = rows.length;
  summary.add(
    rows.map((u) => u.email).join(", "),
  );
  return summary;
}
return main();
