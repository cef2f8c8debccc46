// Part of the prelude: tool calls and ToolError. The host evaluates the
// parts once in every fresh QuickJS instance, before the chain script
// (embed.go).
// ToolError is the rejection of a tool call whose envelope status is not
// "ok": .tool, .status ("error" | "denied"), .reason (stable code) and
// .message (human text) come from the host; .preview (reason
// preview_required) and .retryAfterMs (rate_limited, tool_unavailable) when
// the host sent them. Its stack and position are
// those of the script's `tools.x(...)` call (relocate, 05-errors.js).
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
    if (env.preview !== undefined) this.preview = env.preview;
    if (typeof env.retry_after_ms === "number") this.retryAfterMs = env.retry_after_ms;
  }
}

// ---- tool calls -------------------------------------------------------
let maxInFlight = 64;
let maxResult = Infinity;
let inFlight = 0;
// A request is an array, [name, args JSON, resolve, reject, where] (REQ_*):
// an array literal costs a third of an object literal of five members.
const REQ_NAME = 0, REQ_JSON = 1, REQ_RESOLVE = 2, REQ_REJECT = 3, REQ_WHERE = 4;
const pending = new Map(); // call id -> request
const waiting = []; // requests queued behind maxInFlight
let waitHead = 0;

// startCall starts a call; given the tools.x stub the script called (and
// limitFrames, not -1), the host reads the call site from the stack,
// keeping it for the call's failure (pump), and returns the call id, or its
// negation when it could not read it: the engine captures it then.
function startCall(req, stub, frames) {
  let id = host(OP_CALL, req[REQ_JSON], req[REQ_NAME], stub, frames);
  if (id < 0) {
    req[REQ_WHERE] = hereSite(stub);
    id = -id;
  }
  inFlight++;
  pending.set(id, req);
}

// validName is the host's check (wire.CheckToolName: 1 to 256 bytes of
// UTF-8 without control characters), made here so that a bad name is a
// TypeError the script can catch: the host ends the run on one. A lone
// surrogate has no UTF-8.
const validName = (name) => {
  if (name === "" || name.length > 256 || /[\u0000-\u001f\u007f]/.test(name)) return false;
  let bytes = 0;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c < 0xd800 || c > 0xdfff) bytes += 3;
    else if (c < 0xdc00 && i + 1 < name.length && (name.charCodeAt(i + 1) & 0xfc00) === 0xdc00) { bytes += 4; i++; }
    else return false;
  }
  return bytes <= 256;
};

// callTool makes one call; valid says whether name passed validName (the
// stub checked it once, when it was created); stub is the tools.x function
// the script called, where the call site's capture starts. Its promise's
// executor is one shared function, makeCall, which takes the call from
// the variables below: making a closure per call cost more than the rest of
// the executor. Only the engine's own Promise runs the executor before any
// other code can make a call; a Promise the script put in its place gets a
// closure (one more frame above the stub, which only a capture that takes
// every frame sees).
const NativePromise = Promise;
const nativeStringify = JSON.stringify, ReflectApply = Reflect.apply;
let callName = "", callValid = false, callArgs, callStub;
function callTool(name, valid, args, stub) {
  const P = Promise;
  callName = name; callValid = valid; callArgs = args; callStub = stub;
  if (P === NativePromise) return new P(makeCall);
  return new P((resolve, reject) => {
    callName = name; callValid = valid; callArgs = args; callStub = stub;
    makeCall(resolve, reject);
  });
}

function makeCall(resolve, reject) {
  const name = callName, valid = callValid, args = callArgs, stub = callStub;
  callArgs = undefined; callStub = undefined; // not kept alive by the prelude
  if (!valid) {
    throw new TypeError(`invalid tool name ${JSON.stringify(name)}`);
  }
  let json;
  if (args === undefined) json = "{}";
  else {
    // One read of JSON.stringify, as the call below was; when it is the
    // engine's, the host writes the JSON of plain arguments itself
    // (CALL_VALUE, which runs no JavaScript and declines anything else).
    const J = JSON, stringify = J.stringify;
    if (stringify === nativeStringify) {
      if (inFlight < maxInFlight && limitFrames >= 0) {
        let id = host(OP_CALL_VALUE, args, name, stub, limitFrames);
        if (id !== undefined) {
          // As below (startCall, inlined: this is every call's path).
          const req = [name, null, resolve, reject, null];
          if (id < 0) {
            req[REQ_WHERE] = hereSite(stub);
            id = -id;
          }
          inFlight++;
          pending.set(id, req);
          return;
        }
      }
      json = nativeStringify(args);
    } else {
      // The function read above, called as J.stringify(args) would call
      // it, without reading it a second time (a getter sees one read; at
      // the stack's very edge the call is one native frame deeper, which
      // TestCallValueAsStringify allows a replaced JSON.stringify).
      json = ReflectApply(stringify, J, [args]);
    }
  }
  if (json === undefined) {
    throw new TypeError(`tools.${name}: arguments must be JSON-serializable`);
  }
  const req = [name, json, resolve, reject, null];
  if (inFlight < maxInFlight && limitFrames >= 0) {
    // startCall, inlined: this is every call's path.
    let id = host(OP_CALL, json, name, stub, limitFrames);
    if (id < 0) {
      req[REQ_WHERE] = hereSite(stub);
      id = -id;
    }
    inFlight++;
    pending.set(id, req);
  } else {
    req[REQ_WHERE] = hereSite(stub);
    if (inFlight < maxInFlight) startCall(req);
    else waiting.push(req);
  }
}

// settle settles a call with its envelope; sites is the call site the host
// read (hostSites), if it did.
function settle(req, env, sites) {
  if (env !== null && typeof env === "object" && env.status === "ok") {
    req[REQ_RESOLVE](resultValue(env));
  } else {
    const e = new ToolError(req[REQ_NAME], env !== null && typeof env === "object" ? env : {});
    relocate(e, sites !== undefined ? hostSites(sites) : req[REQ_WHERE]);
    req[REQ_REJECT](e);
  }
}

// Properties that must not become tool calls: `await tools` looks up
// "then", JSON.stringify looks up "toJSON", and so on.
const notTools = new Set(["then", "catch", "finally", "toJSON", "constructor", "valueOf", "toString",
  "toLocaleString", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable", "__proto__"]);
const stubs = Object.create(null); // name -> stub
const tools = new Proxy(Object.create(null), {
  get(_, prop) {
    let f = stubs[prop]; // first: the one lookup of every call
    if (f !== undefined) return f;
    if (typeof prop !== "string" || notTools.has(prop)) return undefined;
    const valid = validName(prop);
    f = (args) => callTool(prop, valid, args, f);
    stubs[prop] = f;
    return f;
  },
  has(_, prop) { return typeof prop === "string" && !notTools.has(prop); },
  set() { return false; },
  defineProperty() { return false; },
  deleteProperty() { return false; },
});


fixed("tools", tools);
fixed("ToolError", ToolError);
