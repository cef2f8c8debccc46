// A recursion too deep: the caught RangeError's stack, frame by frame,
// for recursions whose functions start in the ways V8 places.
function countDown(n) {
  const next = n + 1;
  return countDown(next) + 1;
}
function walk(node) { return walk({ child: node }) }
function sum(list, acc) {
  if (list === null) return acc;
  return sum(list, acc + 1);
}
function bump(n) { n++; return bump(n) }
function pending(n) {
  let result;
  result = pending(n + 1);
  return result;
}
const report = [];
for (const [label, run] of [
  ["declaration", () => countDown(0)],
  ["return", () => walk(null)],
  ["if", () => sum([], 0)],
  ["update", () => bump(0)],
  ["let without value", () => pending(0)],
]) {
  try {
    run();
    report.push(label + ": no error");
  } catch (e) {
    const lines = e.stack.split("\n");
    console.log(label, lines.length, lines[0]);
    console.log(lines.slice(1, 4).join("\n"));
    report.push({ label, name: e.name, frames: lines.length - 1, top: lines[1].trim(), last: lines[lines.length - 1].trim() });
  }
}
return report;
