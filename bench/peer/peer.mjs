// peer.mjs — the peer side of internal/peerbench (BENCHMARKS.md, "Against
// the peer"): QuickJS as quickjs-emscripten 0.32 ships it (Bellard's QuickJS
// built with emscripten, the release-sync variant getQuickJS loads), driven
// from Node the way a code-mode sandbox drives it.
//
//   node peer.mjs serve          reads "MEASURE N" lines on stdin (start,
//                                start_isolated, call, loop), answers each with one JSON line
//                                {"ns":[...]}: N samples in nanoseconds
//   node peer.mjs density N      N runtimes, each with a context blocked in
//                                an await of a host promise never settled;
//                                prints {"before":B,"after":A,"before_pss":
//                                BP,"after_pss":AP,"chains":N} (RSS and PSS
//                                in bytes) and exits
//
// Each measure mirrors the airlock side of the driver: see
// internal/peerbench/main.go for what they are and how they pair up.
import { getQuickJS, newQuickJSWASMModule } from "quickjs-emscripten";
import { createInterface } from "node:readline";
import { readFileSync } from "node:fs";

const QuickJS = await getQuickJS();

// quickjs-emscripten 0.32 keeps typed-array views of the wasm memory across
// some calls (newPromise among them; its issue 240): if the memory grows
// inside one, the host function fails with "detached ArrayBuffer". Growing
// the memory once up front, through emscripten's own allocator so that its
// views follow, avoids that; the block is never touched, so its pages are not
// resident and the RSS figures do not change.
{
  const p = QuickJS.module._malloc(1 << 30); // bytes
  if (p === 0) throw new Error("peer.mjs: could not grow the wasm memory to 1 GiB");
  QuickJS.module._free(p);
}

// The arguments and the reply of every call, the same bytes as the airlock
// side's: ~100 bytes of JSON out, an ok envelope back.
const ARGS = `{q: "${"x".repeat(80)}", n: 1}`;
const REPLY = `{"status":"ok","value":{}}`;

// The guest-side wrapper a sandbox puts around its host function: the
// arguments go out as JSON, the reply comes back as JSON and is unwrapped.
const PRELUDE = `
globalThis.tools = new Proxy({}, { get: (_, name) => async (args) => {
  const r = JSON.parse(await __host(name, JSON.stringify(args)));
  if (r.status !== "ok") throw new Error(r.error);
  return r.value;
}});`;

const now = () => process.hrtime.bigint();

// start: a fresh runtime and context, evaluate 1+1, dispose both.
function start() {
  const t = now();
  const rt = QuickJS.newRuntime();
  const ctx = rt.newContext();
  ctx.unwrapResult(ctx.evalCode("1+1")).dispose();
  ctx.dispose();
  rt.dispose();
  return Number(now() - t);
}

// startIsolated: what a chain of its own memory costs the peer, as each
// airlock chain has its own instance: a fresh WebAssembly module instance
// (its own linear memory; the compiled module is V8's to cache), a runtime
// and a context, evaluate 1+1, dispose them. start above shares one
// module's memory among every runtime: faster, but a chain that corrupts
// that memory reaches the others.
async function startIsolated() {
  const t = now();
  const mod = await newQuickJSWASMModule();
  const rt = mod.newRuntime();
  const ctx = rt.newContext();
  ctx.unwrapResult(ctx.evalCode("1+1")).dispose();
  ctx.dispose();
  rt.dispose();
  return Number(now() - t);
}

// newGuest returns a runtime and context with the prelude and a __host
// function whose calls are queued on pending, each with a deferred promise
// the host settles later.
function newGuest(pending) {
  const rt = QuickJS.newRuntime();
  const ctx = rt.newContext();
  const fn = ctx.newFunction("__host", (nameH, argsH) => {
    const call = { name: ctx.getString(nameH), args: ctx.getString(argsH), d: ctx.newPromise() };
    pending.push(call);
    return call.d.handle;
  });
  ctx.setProp(ctx.global, "__host", fn);
  fn.dispose();
  ctx.unwrapResult(ctx.evalCode(PRELUDE)).dispose();
  return { rt, ctx };
}

// call: n sequential awaited calls in one context; a sample is the time from
// one host call to the next (the same as the airlock side's bridge timing).
function call(n) {
  const pending = [];
  const { rt, ctx } = newGuest(pending);
  const ns = [];
  let last = 0n;
  ctx.unwrapResult(ctx.evalCode(`(async () => { for (let i = 0; i < ${n}; i++) await tools.noop(${ARGS}); })()`)).dispose();
  for (;;) {
    ctx.unwrapResult(rt.executePendingJobs());
    if (pending.length === 0) break;
    const t = now();
    if (last !== 0n) ns.push(Number(t - last));
    last = t;
    for (const c of pending.splice(0)) {
      const h = ctx.newString(REPLY);
      c.d.resolve(h);
      h.dispose();
      c.d.dispose();
    }
  }
  ctx.dispose();
  rt.dispose();
  return ns;
}

// loop: a fresh runtime and context run the same 1e6-iteration loop as the
// airlock side.
function loop() {
  const t = now();
  const rt = QuickJS.newRuntime();
  const ctx = rt.newContext();
  ctx.unwrapResult(ctx.evalCode("let s = 0; for (let i = 0; i < 1e6; i++) s += i; s")).dispose();
  ctx.dispose();
  rt.dispose();
  return Number(now() - t);
}

// pss is the process's proportional set size in bytes (0 without
// /proc/self/smaps_rollup).
function pss() {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync("/proc/self/smaps_rollup", "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

function density(n) {
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  const beforePSS = pss();
  const guests = [];
  for (let i = 0; i < n; i++) {
    const pending = [];
    const g = newGuest(pending);
    const p = g.ctx.unwrapResult(g.ctx.evalCode(`(async () => await tools.hang({}))()`));
    g.ctx.unwrapResult(g.rt.executePendingJobs());
    if (pending.length !== 1) {
      const st = g.ctx.getPromiseState(p);
      throw new Error(`guest ${i}: ${pending.length} calls pending, want 1 (${st.type}: ${st.error && JSON.stringify(g.ctx.dump(st.error))})`);
    }
    p.dispose();
    guests.push({ ...g, pending });
  }
  globalThis.gc?.();
  const after = process.memoryUsage().rss;
  const afterPSS = pss();
  process.stdout.write(JSON.stringify({ before, after, before_pss: beforePSS, after_pss: afterPSS, chains: guests.length }) + "\n");
}

const [mode, arg] = process.argv.slice(2);
if (mode === "density") {
  density(Number(arg));
} else if (mode === "serve") {
  for await (const line of createInterface({ input: process.stdin })) {
    const [what, count] = line.trim().split(/\s+/);
    const n = Number(count);
    let ns;
    if (what === "start") ns = Array.from({ length: n }, start);
    else if (what === "start_isolated") {
      ns = [];
      for (let i = 0; i < n; i++) ns.push(await startIsolated());
    }
    else if (what === "call") ns = call(n + 1);
    else if (what === "loop") ns = Array.from({ length: n }, loop);
    else throw new Error(`peer.mjs: unknown measure ${JSON.stringify(line)}`);
    process.stdout.write(JSON.stringify({ ns }) + "\n");
  }
} else {
  process.stderr.write("usage: node peer.mjs serve | node peer.mjs density N\n");
  process.exit(2);
}
