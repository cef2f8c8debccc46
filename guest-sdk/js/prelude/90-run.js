// Part of the prelude: the result, failures, Math.random and the two
// entry points the host's event loop calls, __airlock_start and
// __airlock_pump (../../ABI.md).
// ---- result and failure -----------------------------------------------
// Prefixes put before the script, on its first line, so that line numbers
// in stack traces are the script's own; the host subtracts the prefix from
// columns on line 1 (it learns its length from the failure report).
const SCRIPT_PREFIX = '"use strict";__airlock_mark();';
const BODY_PREFIX = '(async () => { "use strict"; ';
let prefix = 0;

const isOutOfMemory = (e) => e instanceof Error && e.name === "InternalError" && e.message === "out of memory";

function fail(e, compile) {
  let report;
  if (isOutOfMemory(e)) {
    // The host reports it as limit_exceeded (memory); building a report
    // could fail again.
    host(OP_FAIL, '{"name":"InternalError","message":"out of memory","error":true}');
    return;
  }
  try {
    if (e instanceof Error) {
      // The position the error hook recorded (05-errors.js), mapped to the
      // script as submitted; 0 when the error has no frame in the script.
      const site = errorSiteOf(e);
      let stack = e.stack;
      if (typeof stack !== "string") stack = "";
      report = JSON.stringify({ name: String(e.name), message: String(e.message) + absentHint(e), stack,
        error: true, prefix, compile: !!compile, line: site ? site.line : 0, column: site ? site.col : 0 });
    } else {
      report = JSON.stringify({ name: "", message: "uncaught non-Error value: " + (typeof e === "string" ? JSON.stringify(e) : show(e)), stack: "", error: false, prefix });
    }
  } catch (_) {
    report = "{}";
  }
  host(OP_FAIL, noNul(report));
}

function finish(v) {
  if (typeof v === "string" && v.length + 2 > maxResult) {
    // Its JSON has at least as many bytes as the string has UTF-16 units,
    // plus the quotes: too large without encoding it, which would take as
    // much memory again and time proportional to its length.
    host(OP_TOO_LARGE, String(v.length + 2));
    return;
  }
  let json;
  try {
    json = JSON.stringify(v);
  } catch (e) {
    fail(isOutOfMemory(e) ? e : new TypeError("the script's result is not JSON-serializable: " + show(e)));
    return;
  }
  if (json !== undefined && json.length > maxResult) {
    // Too large whatever its encoding: report the size, skip the copy.
    host(OP_TOO_LARGE, String(json.length));
    return;
  }
  host(OP_DONE, json === undefined ? "null" : json);
}

// ---- Math.random --------------------------------------------------------
// The engine seeds its generator when the instance is created, and
// instances are restored from one snapshot: every chain would replay one
// sequence. The host hands each run a seed of its own instead, for
// xoshiro128** (32-bit words, so no BigInt on the hot path); two outputs
// make the 53 bits of a double, as engines do.
// Math.random is defined once, in the prelude; each run only reseeds it:
// changing a property of a shared object at every start costs the engine a
// shape copy (tens of microseconds).
let ra = 1, rb = 0, rc = 0, rd = 0;
function nextRandom() {
  const r = Math.imul(rotl(Math.imul(rb, 5), 7), 9) >>> 0;
  const t = (rb << 9) >>> 0;
  rc ^= ra; rd ^= rb; rb ^= rc; ra ^= rd; rc ^= t;
  rd = rotl(rd, 11);
  return r;
}
Object.defineProperty(Math, "random", {
  value: function random() {
    return ((nextRandom() >>> 5) * 67108864 + (nextRandom() >>> 6)) / 9007199254740992;
  },
  writable: true, enumerable: false, configurable: true,
});
function seedRandom(s0, s1, s2, s3) {
  ra = s0 >>> 0; rb = s1 >>> 0; rc = s2 >>> 0; rd = s3 >>> 0;
}
const rotl = (x, k) => ((x << k) | (x >>> (32 - k))) >>> 0;

// ---- entry points the host calls --------------------------------------
// __airlock_start compiles the script and starts it. It first evaluates
// the source as a plain script: if that compiles, its completion value (the
// value of its last expression statement) is the result, called first if it
// is a function, awaited if it is a promise. A source that does not compile
// as a script because it uses top-level await or return is compiled as the
// body of an async function instead. A marker call at the start of the
// script tells a compile error from a SyntaxError the script itself threw.
// With body true (the host found a top-level return, which no script can
// hold: sandbox/scriptform.go) the first, failing, compile is skipped.
let started = false;
function start(limit, body, params, where, src) {
  if (started) return; // the host starts a run once; a script calling it again starts nothing
  started = true;
  maxInFlight = limit;
  maxResult = params[0];
  seedRandom(params[1], params[2], params[3], params[4]);
  // where and src come as arguments (ABI.md): no host call needed.
  const nl = where.indexOf("\n");
  const ts = where.slice(0, nl) === "ts", file = where.slice(nl + 1);
  began = false;
  let value, run = null, script = !body;
  if (script) {
    prefix = SCRIPT_PREFIX.length;
    try {
      beginErrors(file, ts, SCRIPT_PREFIX + src, prefix, 0);
      firstTry = true;
      value = indirectEval(SCRIPT_PREFIX + src);
      firstTry = false;
    } catch (e) {
      firstTry = false;
      if (!began && e instanceof SyntaxError) e = null; // compiled as a body below
      if (e !== null) { fail(e, !began); return; }
      script = false;
    }
  }
  if (!script) {
    prefix = BODY_PREFIX.length;
    try {
      beginErrors(file, ts, BODY_PREFIX + src + "\n})", prefix, 1);
      run = indirectEval(BODY_PREFIX + src + "\n})");
    } catch (e2) {
      fail(e2, true);
      return;
    }
  }
  // The engine's own Promise and then, taken before any script ran, and
  // promises whose own constructor names it as their species: a script
  // that replaced Promise or Promise.prototype.then would otherwise be
  // handed finish and fail (and could report a result when it liked, and
  // run on after it), and one that replaced Promise.prototype.constructor
  // would make the chain's promises, and have its code run after the
  // result, when finish's return resolves the last of them.
  const first = apply(promiseThen, native(apply(promiseResolve, NativePromise, [])),
    [() => (run !== null ? run() : typeof value === "function" ? value() : value)]);
  apply(promiseThen, native(first), [finish, fail]);
}
const apply = Reflect.apply, defineProperty = Object.defineProperty;
const promiseThen = NativePromise.prototype.then, promiseResolve = NativePromise.resolve;
const nativeSpecies = { [Symbol.species]: NativePromise };
const native = (p) => defineProperty(p, "constructor", { value: nativeSpecies });

// __airlock_pump handles one event the host chose (../../ABI.md): the
// completion of call id, whose promise it settles before starting queued
// calls in the slot it freed, or, with id 0, the earliest due timer
// (30-timers.js). The host calls it directly, with the payload already
// parsed by the engine's JSON parser: kind 1, the value of a plain ok
// result, which resolves the call as it is; kind 0, the envelope, with
// sites, the call site the host read when the call was made, if it did.
function pump(id, kind, payload, sites) {
  if (host(OP_PUMPED) !== 1) return; // called by the script, not the host
  if (id === 0) {
    runTimer();
    return;
  }
  const req = pending.get(id);
  if (req === undefined) return;
  pending.delete(id);
  inFlight--;
  if (kind === 1) req[REQ_RESOLVE](payload);
  else settle(req, payload, sites);
  if (waitHead < waiting.length) startWaiting();
}

function startWaiting() {
  while (inFlight < maxInFlight && waitHead < waiting.length) {
    const req = waiting[waitHead];
    waiting[waitHead++] = undefined;
    startCall(req);
  }
  if (waitHead === waiting.length) { waiting.length = 0; waitHead = 0; }
}

// __airlock_mark is called by the script's prefix: a SyntaxError thrown
// after it is the script's own, not a compile error. Defined once, like
// Math.random, rather than at every start.
let began = false, firstTry = false;
fixed("__airlock_mark", () => { began = true; });
fixed("__airlock_start", start);
fixed("__airlock_pump", pump);
