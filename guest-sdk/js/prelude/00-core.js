// Shared by every part: the host function, the operation codes (wire.go)
// and the helpers that define globals.
const g = globalThis;
const host = g.__airlock_host;
const indirectEval = g.eval;
const OP_CALL = 1, OP_LOG = 2, OP_DONE = 3, OP_FAIL = 4, OP_TOO_LARGE = 7, OP_TIMER = 8, OP_PUMPED = 16, OP_CALL_VALUE = 18;

// The engine's own globals: file and process access (std, os), binary
// (de)serialisation (bjson), its argv, its proxy class and raw stdout.
for (const name of ["__airlock_host", "std", "os", "bjson", "scriptArgs", "QJS_PROXY_VALUE", "print", "navigator"]) {
  try { delete g[name]; } catch (_) { /* not configurable: left as is */ }
}


const noNul = (s) => (s.indexOf("\0") < 0 ? s : s.replace(/\0/g, "\\u0000"));

// fixed defines a global the script cannot replace or delete; web defines
// one the way Web platform globals are (writable, configurable, not
// enumerable), for scripts that feature-test or polyfill.
const fixed = (name, value) => Object.defineProperty(g, name,
  { value, writable: false, enumerable: false, configurable: false });
const web = (name, value) => Object.defineProperty(g, name,
  { value, writable: true, enumerable: false, configurable: true });
