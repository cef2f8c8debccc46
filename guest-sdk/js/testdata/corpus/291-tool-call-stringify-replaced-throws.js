// A replaced JSON.stringify that sees its receiver and throws: where the
// error points, and what `this` was.
const real = JSON.stringify;
let self;
JSON.stringify = function (v) {
  self = this === JSON;
  if (v && v.bad) throw new RangeError("replaced stringify refuses");
  return real(v);
};
function make() {
  return tools.echo({ bad: true });
}
try {
  await make();
} catch (e) {
  console.log(e.name, e.message);
  // V8 names the replacement's frame after its receiver; the engine does not.
  console.log(e.stack.split("\n").filter((l) => !l.includes(":7:")).join("\n"));
}
console.log(self);
const ok = await tools.echo({ fine: 1 });
JSON.stringify = real;
console.log(JSON.stringify(ok), self);
