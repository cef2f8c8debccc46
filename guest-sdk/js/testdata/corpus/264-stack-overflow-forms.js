// Every form of recursion too deep throws a RangeError the script can
// catch, with a stack of the script's frames.
const forms = {
  plain: () => { const f = (n) => f(n + 1) + 1; return f(0); },
  getter: () => { const o = { get x() { return this.x; } }; return o.x; },
  toString: () => { const o = { toString() { return "" + this; } }; return String(o); },
  valueOf: () => { const o = { valueOf() { return +this; } }; return +o; },
  map: () => { const f = (n) => [n].map(f); return f(0); },
  proxy: () => { const p = new Proxy({}, { get: (t, k) => p[k] }); return p.x; },
  construct: () => { class A { constructor() { new A(); } } return new A(); },
  stringify: () => { let o = {}; for (let i = 0; i < 100000; i++) o = { o }; return JSON.stringify(o); },
  evaluate: () => eval("(".repeat(20000) + "1" + ")".repeat(20000)),
};
const out = {};
for (const [name, run] of Object.entries(forms)) {
  try {
    run();
    out[name] = "no error";
  } catch (e) {
    const lines = String(e.stack).split("\n");
    out[name] = {
      is: e instanceof RangeError,
      head: lines[0],
      hasFrames: lines.length > 1 && lines.slice(1).every((l) => /^    at .*script\.js:\d+:\d+\)?$/.test(l)),
    };
  }
}
const viaAsync = async (n) => 1 + await viaAsync(n + 1);
try {
  await viaAsync(0);
} catch (e) {
  out.async = { is: e instanceof RangeError, head: e.stack.split("\n")[0], hasFrames: e.stack.includes("    at viaAsync (script.js:") };
}
console.log(JSON.stringify(out));
return out;
