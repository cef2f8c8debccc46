// node-run.mjs runs one compatibility-corpus script under Node 20 the way
// airlock runs it (guest-sdk/js/README.md, "Two forms"), with the fixture
// tools of compat_tools_test.go, and prints one JSON object:
//
//   {"status":"ok"|"error","value":"<result JSON text>","logs":[{"level","text"}],
//    "error":{"message":"Name: message","line":L,"column":C}}
//
// Usage (compat_test.go runs it with TZ=UTC):
//
//   node node-run.mjs [--name script.ts] [--wrap N] FILE
//       FILE is the script; for TypeScript, the JavaScript esbuild made of it
//       with an inline source map (positions are mapped back through it), N
//       the lines the host put before the script when it wrapped a body.
//   node node-run.mjs --tools CALLS.json
//       runs [[tool, args], …] in order, one run, and prints the envelopes,
//       one JSON text a line (the Go test compares them with its own).
//
// Only the script's own stack frames are shown in err.stack (airlock has no
// runner frames to show), and console output is captured with its level:
// log, info, dir, table, group*, time*, count → info; debug → debug;
// warn, assert → warn; error, trace → error (Node writes them to stderr).
import fs from "node:fs";
import vm from "node:vm";
import { Console } from "node:console";
import { EventEmitter } from "node:events";
import { SourceMap } from "node:module";

// ---- fixture tools (keep equal to compat_tools_test.go) ------------------

const FIRST = ["Ana", "Ben", "Chloé", "Dmitri", "Émile", "Fatima", "Günter", "Hana", "Ivan", "Jürgen", "Kenji", "Léa", "Mateo",
  "Nadia", "Oskar", "Priya", "Quentin", "Rosa", "Søren", "Tomás", "Uma", "Viktor", "Wen", "Xavier", "Yara", "Zoë"];
const LAST = ["Almeida", "Becker", "Çelik", "Dubois", "Eriksson", "Fischer", "García", "Hoffmann", "Ishikawa", "Jensen", "Kowalski",
  "López", "Müller", "Nakamura", "O'Brien", "Petrov", "Quispe", "Rossi", "Schmidt", "Tanaka", "Ünal", "Vargas", "Weber", "Xu", "Yilmaz", "Zhang"];
const COUNTRIES = ["US", "GB", "DE", "FR", "ES", "IT", "BR", "JP", "CN", "KR", "IN", "EG", "TR"];
const ROLES = ["admin", "editor", "viewer", "viewer", "editor"];
const SKUS = ["A-100", "B-200", "C-300", "D-400", "E-500", "F-600", "G-700", "H-800"];
const SKU_CENTS = [999, 2450, 120, 7999, 1575, 300, 12900, 45];
const CURRENCIES = ["USD", "EUR", "GBP"];
const STATUSES = ["pending", "paid", "shipped", "delivered", "cancelled"];
const CATEGORIES = ["books", "garden", "kitchen", "toys", "tools", "music"];
const TAGS = ["new", "sale", "popular", "eco", "limited"];
const WEATHER = [
  ["Berlin", 12.5, "cloudy", 71, 14], ["Paris", 15, "sunny", 55, 9], ["Tokyo", 22.3, "rain", 88, 20],
  ["London", 11, "rain", 80, 18], ["New York", 18.7, "sunny", 40, 12], ["São Paulo", 27, "storm", 90, 25],
  ["Madrid", 24, "sunny", 30, 7], ["Cairo", 33.1, "sunny", 20, 11], ["Mumbai", 31, "humid", 85, 10],
  ["Seoul", -2.5, "snow", 60, 16],
];
const DOCS = [
  ["Getting started with Kubernetes", "https://docs.example.com/k8s/start?lang=en#intro", "2024-01-15T09:30:00Z", 0.92],
  ["Kubernetes networking deep dive", "https://blog.example.org/posts/k8s-networking?utm_source=feed&ref=home", "2023-11-02T14:00:00Z", 0.87],
  ["Postgres indexing tips", "https://db.example.com/pg/indexes/", "2024-02-20T08:15:00Z", 0.75],
  ["Scaling Postgres reads", "http://db.example.com:8080/pg/replicas?page=2", "2022-06-30T23:59:59Z", 0.66],
  ["Rust ownership explained", "https://learn.example.net/rust/ownership", "2024-03-05T12:00:00Z", 0.81],
  ["Go concurrency patterns", "https://go.example.dev/blog/pipelines?x=1&y=two%20words", "2023-07-19T17:45:00Z", 0.9],
  ["Kubernetes cost control", "https://finops.example.com/k8s/cost#savings", "2024-04-01T00:00:00Z", 0.58],
  ["Unicode in URLs: café and naïve", "https://example.com/wiki/Caf%C3%A9?q=na%C3%AFve", "2021-12-24T18:00:00Z", 0.44],
];
const EVENTS = [
  ["Quarterly review", "2024-03-28T15:00:00Z", 90, "America/New_York"],
  ["Sprint planning", "2024-03-04T09:00:00Z", 60, "Europe/Berlin"],
  ["Release 2.0", "2024-04-15T07:30:00Z", 30, "Asia/Tokyo"],
  ["Team offsite", "2024-05-20T08:00:00Z", 480, "Europe/Paris"],
  ["Budget deadline", "2024-02-29T23:00:00Z", 0, "UTC"],
  ["Customer call", "2024-03-10T06:30:00Z", 45, "America/Los_Angeles"],
];
const FILES = {
  "hello.txt": ["text/plain", "Hello, wörld! ✓\n"],
  "report.csv": ["text/csv", "id,name,amount\n1,Widget,9.99\n2,Gadget,24.50\n3,\"Doohickey, large\",120\n4,Gizmo,0.45\n"],
};

const pad = (n, w) => String(n).padStart(w, "0");
const day = (d) => new Date(Date.UTC(2023, 0, 1 + d)).toISOString().slice(0, 10);
const ok = (value) => ({ status: "ok", value });
const num = (v, d) => (typeof v === "number" ? v : d);

function user(i) {
  return {
    id: i, name: FIRST[(i * 7) % 26] + " " + LAST[(i * 11) % 26], email: `user${i}@example.com`,
    age: 18 + (i * 37) % 50, country: COUNTRIES[(i * 5) % 13], role: ROLES[i % 5], active: i % 3 !== 0,
    signup: day((i * 53) % 700), score: ((i * 7919) % 1000) / 10,
  };
}

function order(i, userId) {
  const items = [];
  let cents = 0;
  for (let j = 0; j < 1 + (i % 3); j++) {
    const k = (i + j) % 8, qty = 1 + (i * j + i) % 4;
    items.push({ sku: SKUS[k], qty, price: SKU_CENTS[k] / 100 });
    cents += qty * SKU_CENTS[k];
  }
  return {
    id: `ord-${1000 + i}`, userId: userId ?? 1 + (i * 13) % 25, items, total: cents / 100,
    currency: CURRENCIES[i % 3], status: STATUSES[(i * 3) % 5],
    createdAt: new Date(Date.UTC(2024, 2, 1, 8) + i * (7 * 3600 + 13 * 60) * 1000).toISOString(),
  };
}

function item(i) {
  return {
    id: i, sku: `SKU-${pad(i, 5)}`, name: `Item ${i}`, category: CATEGORIES[i % 6], price: ((i * 379) % 10000) / 100,
    stock: (i * 31) % 200, tags: [TAGS[i % 5], TAGS[(i * 3 + 1) % 5]], rating: 1 + (i * 7) % 5,
  };
}

function newTools() {
  const flaky = new Map(), kv = new Map();
  let sent = 0;
  return {
    echo: (a) => ok(a),
    users: (a) => {
      const n = Math.min(num(a.n, 10), 1000), off = num(a.offset, 0), out = [];
      for (let i = off + 1; i <= off + n; i++) out.push(user(i));
      return ok(out);
    },
    orders: (a) => {
      const n = Math.min(num(a.n, 20), 1000), out = [];
      for (let i = 1; i <= n; i++) out.push(order(i, typeof a.userId === "number" ? a.userId : undefined));
      return ok(out);
    },
    weather: (a) => {
      const w = WEATHER.find((r) => r[0] === a.city);
      if (!w) return { status: "error", reason: "not_found", message: `unknown city: ${a.city}` };
      return ok({ city: w[0], tempC: w[1], condition: w[2], humidity: w[3], windKph: w[4] });
    },
    fail: (a) => {
      const env = { status: typeof a.status === "string" ? a.status : "error", reason: typeof a.reason === "string" ? a.reason : "tool_error" };
      if (typeof a.message === "string") env.message = a.message;
      return env;
    },
    delay: async (a) => {
      const ms = Math.min(Math.max(num(a.ms, 0), 0), 3000);
      await new Promise((r) => setTimeout(r, ms));
      return ok(a.value === undefined ? { waited: ms } : a.value);
    },
    big: (a) => {
      const n = Math.min(num(a.n, 2000), 5000), out = [];
      for (let i = 1; i <= n; i++) out.push(item(i));
      return ok(out);
    },
    flaky: (a) => {
      const key = typeof a.key === "string" ? a.key : "default", fails = num(a.failTimes, 2);
      const count = (flaky.get(key) ?? 0) + 1;
      flaky.set(key, count);
      if (count <= fails) return { status: "error", reason: "unavailable", message: `${key}: temporarily unavailable (attempt ${count})` };
      return ok({ key, attempts: count });
    },
    search: (a) => {
      const q = typeof a.q === "string" ? a.q.toLowerCase() : "", out = [];
      for (const d of DOCS) {
        if (d[0].toLowerCase().includes(q)) out.push({ title: d[0], url: d[1], published: d[2], score: d[3] });
      }
      return ok(out.slice(0, num(a.limit, 10)));
    },
    prices: (a) => {
      const out = {};
      for (const s of Array.isArray(a.symbols) ? a.symbols : []) {
        let c = 0;
        for (const ch of String(s)) c += ch.codePointAt(0) * 97;
        out[s] = (1000 + (c % 90000)) / 100;
      }
      return ok(out);
    },
    events: () => ok(EVENTS.map((e, i) => ({ id: i + 1, title: e[0], start: e[1], minutes: e[2], timeZone: e[3] }))),
    page: (a) => {
      const from = typeof a.cursor === "string" ? Number(a.cursor.slice(1)) : 0, items = [];
      for (let i = from + 1; i <= Math.min(from + 5, 13); i++) items.push({ id: i, name: `row ${i}` });
      return ok({ items, nextCursor: from + 5 < 13 ? `c${from + 5}` : null });
    },
    "kv.set": (a) => { kv.set(String(a.key), a.value ?? null); return ok({ ok: true }); },
    "kv.get": (a) => ok(kv.has(String(a.key)) ? kv.get(String(a.key)) : null),
    notify: (a) => { sent++; return ok({ id: `msg-${sent}`, to: a.to ?? null, accepted: true }); },
    file: (a) => {
      const f = FILES[a.name];
      if (!f) return { status: "error", reason: "not_found", message: `no file named ${a.name}` };
      return ok({ name: a.name, mime: f[0], base64: Buffer.from(f[1], "utf8").toString("base64") });
    },
    csv: () => ok(FILES["report.csv"][1]),
  };
}

// call runs one fixture tool and returns its envelope as JSON text, as the
// bridge would hand it to the guest.
async function call(fixtures, name, argsJSON) {
  const f = Object.hasOwn(fixtures, name) ? fixtures[name] : undefined;
  if (f === undefined) return JSON.stringify({ status: "error", reason: "unknown_tool", message: `no tool named ${name}` });
  return JSON.stringify(await f(JSON.parse(argsJSON)));
}

// ---- --tools: the fixture check -------------------------------------------

const argv = process.argv.slice(2);
if (argv[0] === "--tools") {
  const fixtures = newTools(), out = [];
  for (const [name, args] of JSON.parse(fs.readFileSync(argv[1], "utf8"))) out.push(await call(fixtures, name, JSON.stringify(args)));
  process.stdout.write(out.join("\n") + "\n", () => process.exit(0));
  await new Promise(() => {}); // until the write is done
}

// ---- the run ----------------------------------------------------------------

let name = "script.js", wrap = 0, file = "";
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--name") name = argv[++i];
  else if (argv[i] === "--wrap") wrap = Number(argv[++i]);
  else file = argv[i];
}
if (process.env.TZ !== "UTC") throw new Error("node-run.mjs: run with TZ=UTC");
const src = fs.readFileSync(file, "utf8");

// TypeScript: positions in the generated JavaScript map back to the source.
let smap = null;
const m = /\n\/\/# sourceMappingURL=data:application\/json;base64,([A-Za-z0-9+/=]+)\s*$/.exec(src);
if (m) smap = new SourceMap(JSON.parse(Buffer.from(m[1], "base64").toString("utf8")));

// where maps a 1-based position in the evaluated code to the script's own.
function where(line, col) {
  if (smap) {
    const e = smap.findEntry(line - 1, col - 1);
    if (e.originalLine === undefined) return null;
    line = e.originalLine + 1 - wrap;
    col = e.originalColumn + 1;
    if (line < 1) return null;
  }
  return { line, column: col };
}

// Only the script's own frames, with positions in its source.
const origins = new WeakMap(); // error or captured site -> {line, column} of its first script frame
Error.prepareStackTrace = (err, sites) => {
  let head;
  try { head = Error.prototype.toString.call(err); } catch (_) { head = "Error"; }
  const own = sites.filter((s) => s.getFileName() === name);
  let text = head;
  for (const s of own) {
    const p = where(s.getLineNumber(), s.getColumnNumber());
    if (p && !origins.has(err)) origins.set(err, p);
    let f = s.toString();
    if (p) f = f.replace(`${name}:${s.getLineNumber()}:${s.getColumnNumber()}`, `${name}:${p.line}:${p.column}`);
    text += "\n    at " + f;
  }
  return text;
};

// ---- console ----------------------------------------------------------------
const logs = [];
let level = "info";
const sink = Object.assign(new EventEmitter(), {
  write(chunk) {
    const s = String(chunk);
    logs.push({ level, text: s.endsWith("\n") ? s.slice(0, -1) : s });
    return true;
  },
});
const inner = new Console({ stdout: sink, stderr: sink, colorMode: false });
const LEVELS = {
  log: "info", info: "info", debug: "debug", warn: "warn", error: "error", trace: "error", dir: "info", dirxml: "info",
  table: "info", group: "info", groupCollapsed: "info", groupEnd: "info", time: "info", timeEnd: "info", timeLog: "info",
  count: "info", countReset: "info", assert: "warn",
};
const capture = {};
for (const [method, lvl] of Object.entries(LEVELS)) {
  capture[method] = function (...args) { level = lvl; return inner[method](...args); };
}
Object.defineProperty(globalThis, "console", { value: Object.freeze(capture), writable: true, configurable: true, enumerable: false });

// ---- tools and ToolError (as guest-sdk/js/prelude/10-tools.js) ----------------
class ToolError extends Error {
  constructor(tool, env) {
    const status = typeof env.status === "string" ? env.status : "error";
    const reason = typeof env.reason === "string" ? env.reason : "";
    const text = typeof env.message === "string" && env.message !== ""
      ? env.message
      : `tool ${tool}: ${status}${reason ? " (" + reason + ")" : ""}`;
    super(text);
    this.name = "ToolError";
    this.tool = tool;
    this.status = status;
    this.reason = reason;
  }
}

const fixtures = newTools();
const notTools = new Set(["then", "catch", "finally", "toJSON", "constructor", "valueOf", "toString",
  "toLocaleString", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable", "__proto__"]);
const stubs = new Map();
function callTool(tool, args, stub) {
  // The call site, for the position of an uncaught ToolError: the line of
  // the `await tools.x(…)` that failed.
  const site = {};
  Error.captureStackTrace(site, stub);
  return new Promise((resolve, reject) => {
    const json = args === undefined ? "{}" : JSON.stringify(args);
    if (json === undefined) throw new TypeError(`tools.${tool}: arguments must be JSON-serializable`);
    // Completions arrive on a later turn of the event loop, like I/O.
    setImmediate(async () => {
      const env = JSON.parse(await call(fixtures, tool, json));
      if (env.status === "ok") { resolve(env.value === undefined ? null : env.value); return; }
      const err = new ToolError(tool, env);
      void site.stack; // formats the call site's frames, recording their origin
      err.stack = Error.prototype.toString.call(err) + site.stack.slice(site.stack.indexOf("\n") < 0 ? site.stack.length : site.stack.indexOf("\n"));
      if (origins.has(site)) origins.set(err, origins.get(site));
      reject(err);
    });
  });
}
const tools = new Proxy(Object.create(null), {
  get(_, prop) {
    if (typeof prop !== "string" || notTools.has(prop)) return undefined;
    let f = stubs.get(prop);
    if (f === undefined) {
      f = (args) => callTool(prop, args, f);
      stubs.set(prop, f);
    }
    return f;
  },
  has(_, prop) { return typeof prop === "string" && !notTools.has(prop); },
  set() { return false; },
  defineProperty() { return false; },
  deleteProperty() { return false; },
});
Object.defineProperty(globalThis, "tools", { value: tools, writable: false, enumerable: false, configurable: false });
Object.defineProperty(globalThis, "ToolError", { value: ToolError, writable: false, enumerable: false, configurable: false });

// ---- result and failure (as guest-sdk/js/prelude/90-run.js) ----------------
function show(v) {
  if (typeof v === "string") return v;
  if (v === undefined || typeof v === "function" || typeof v === "symbol" || typeof v === "bigint") return String(v);
  try {
    const s = JSON.stringify(v);
    return s === undefined ? String(v) : s;
  } catch (_) {
    return String(v);
  }
}

let done = false;
function emit(out) {
  if (done) return;
  done = true;
  out.logs = logs;
  process.stdout.write(JSON.stringify(out) + "\n", () => process.exit(0));
}

function fail(e, pos) {
  if (e instanceof Error) {
    void e.stack; // records the origin
    const p = pos ?? origins.get(e) ?? null;
    const message = String(e.name) !== "" ? `${e.name}: ${e.message}` : String(e.message);
    emit({ status: "error", error: { message, line: p ? p.line : 0, column: p ? p.column : 0 } });
    return;
  }
  emit({ status: "error", error: { message: "uncaught non-Error value: " + (typeof e === "string" ? JSON.stringify(e) : show(e)), line: 0, column: 0 } });
}

function finish(v) {
  let json;
  try {
    json = JSON.stringify(v);
  } catch (e) {
    fail(new TypeError("the script's result is not JSON-serializable: " + show(e)));
    return;
  }
  emit({ status: "ok", value: json === undefined ? "null" : json });
}

// compileError reads the position of a SyntaxError from the header Node
// puts on it ("script.js:L\n<line>\n   ^^^").
function compileError(e) {
  const m = /^[^\n]*:(\d+)\n([^\n]*)\n( *)\^/.exec(String(e.stack));
  const p = m ? where(Number(m[1]), m[3].length + 1) : null;
  fail(e, p ?? { line: 0, column: 0 });
}

process.on("uncaughtException", (e) => fail(e));
process.on("unhandledRejection", (e) => fail(e));
process.on("beforeExit", () => emit({ status: "error", error: {
  message: "the script can never finish: it awaits a promise that no tool call, timer or other job will settle", line: 0, column: 0 } }));

// First as a plain script whose completion value is the result; if that
// does not compile, as the body of an async function. Both strict.
let script, body = false;
try {
  script = new vm.Script('"use strict";\n' + src, { filename: name, lineOffset: -1 });
} catch (e) {
  if (!(e instanceof SyntaxError)) throw e;
  try {
    script = new vm.Script('(async () => { "use strict";\n' + src + "\n})", { filename: name, lineOffset: -1 });
    body = true;
  } catch (e2) {
    compileError(e2);
  }
}
if (script) {
  let value;
  let threw = false;
  try {
    value = script.runInThisContext({ displayErrors: false });
  } catch (e) {
    threw = true;
    fail(e);
  }
  if (!threw) {
    Promise.resolve()
      .then(() => (body ? value() : typeof value === "function" ? value() : value))
      .then(finish, (e) => fail(e));
  }
}
