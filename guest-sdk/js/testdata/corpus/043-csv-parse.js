const csv = await tools.csv();
function parseLine(line) {
  const out = [];
  let cur = "", quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (ch === "," && !quoted) { out.push(cur); cur = ""; }
    else cur += ch;
  }
  out.push(cur);
  return out;
}
const [header, ...rows] = csv.trim().split("\n").map(parseLine);
const records = rows.map((r) => Object.fromEntries(header.map((h, i) => [h, i === 2 ? Number(r[i]) : r[i]])));
const total = records.reduce((s, r) => s + r.amount, 0);
return { records, total: total.toFixed(2) };
