// How often a tool call reads JSON.stringify while it is made: once, as
// `JSON.stringify(args)` reads it, whether what it reads is the engine's
// own or a replacement.
const real = JSON.stringify;
const desc = Object.getOwnPropertyDescriptor(JSON, "stringify");
const reads = [];
let which = "wrapper", counting = false;
Object.defineProperty(JSON, "stringify", {
  configurable: true,
  get() {
    if (!counting) return real;
    reads.push(which);
    return which === "real" ? real : function (v) { return real(v); };
  },
});
function call(args) {
  counting = true;
  const p = tools.echo(args);
  counting = false;
  return p;
}
const a = await call({ a: 1 });
which = "real";
const b = await call({ b: [2] });
which = "wrapper";
const c = await call("s");
const d = await call([{ d: null }]);
Object.defineProperty(JSON, "stringify", desc);
console.log(reads.length, reads.join(","));
console.log(JSON.stringify([a, b, c, d]));
return reads.length;
