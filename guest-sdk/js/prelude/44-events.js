// Part of the prelude: Event, CustomEvent, EventTarget, AbortController and AbortSignal,
// as Node 20 has them (no bubbling or capture: there is no tree).
// ---- events -------------------------------------------------------------
let eventDispatch, eventTrust;

class Event {
  #type;
  #bubbles;
  #cancelable;
  #composed;
  #canceled = false;
  #target = null;
  #current = null;
  #phase = 0;
  #stop = false;
  #dispatching = false;
  #trusted = false;
  #time = performance.now();
  static {
    // eventDispatch runs the listeners of target for ev; it returns false
    // if the event is already being dispatched.
    eventDispatch = (ev, target, run) => {
      if (ev.#dispatching) return false;
      ev.#dispatching = true;
      ev.#target = ev.#current = target;
      ev.#phase = 2;
      try { run(() => ev.#stop); } finally {
        ev.#dispatching = false;
        ev.#current = null;
        ev.#phase = 0;
        ev.#stop = false;
      }
      return true;
    };
    eventTrust = (ev) => { ev.#trusted = true; return ev; };
  }
  constructor(type, options = {}) {
    if (arguments.length < 1) throw missingArg("type");
    if (options !== null && options !== undefined && typeof options !== "object") {
      throw coded(TypeError, `The "options" argument must be of type object. Received ${received(options)}`, "ERR_INVALID_ARG_TYPE");
    }
    this.#type = String(type);
    this.#bubbles = !!(options && options.bubbles);
    this.#cancelable = !!(options && options.cancelable);
    this.#composed = !!(options && options.composed);
  }
  initEvent(type, bubbles = false, cancelable = false) {
    if (this.#dispatching) return;
    this.#type = String(type);
    this.#bubbles = !!bubbles;
    this.#cancelable = !!cancelable;
  }
  stopImmediatePropagation() { this.#stop = true; }
  preventDefault() { if (this.#cancelable) this.#canceled = true; }
  get target() { return this.#target; }
  get currentTarget() { return this.#current; }
  get srcElement() { return this.#target; }
  get type() { return this.#type; }
  get cancelable() { return this.#cancelable; }
  get defaultPrevented() { return this.#canceled; }
  get timeStamp() { return this.#time; }
  composedPath() { return this.#dispatching ? [this.#current] : []; }
  get returnValue() { return !this.#canceled; }
  set returnValue(v) { if (!v) this.preventDefault(); }
  get bubbles() { return this.#bubbles; }
  get composed() { return this.#composed; }
  get eventPhase() { return this.#phase; }
  get cancelBubble() { return false; }
  set cancelBubble(v) { /* no tree to bubble through */ }
  stopPropagation() { /* no tree to propagate through */ }
  get isTrusted() { return this.#trusted; }
  get [Symbol.toStringTag]() { return "Event"; }
}
for (const [i, k] of ["NONE", "CAPTURING_PHASE", "AT_TARGET", "BUBBLING_PHASE"].entries()) {
  Object.defineProperty(Event, k, { value: i, enumerable: true });
}

class CustomEvent extends Event {
  #detail;
  constructor(type, options = {}) {
    if (arguments.length < 1) throw missingArg("type");
    super(type, options);
    this.#detail = options && options.detail !== undefined ? options.detail : null;
  }
  get detail() { return this.#detail; }
  get [Symbol.toStringTag]() { return "CustomEvent"; }
}

// reportListenerError fails the run with an error a listener threw, after
// the dispatch, as Node's process does.
const reportListenerError = (e) => queueMicrotask(() => fail(e));

class EventTarget {
  #listeners = new Map(); // type -> [{fn, capture, once, removed}]
  addEventListener(type, listener, options = {}) {
    if (arguments.length < 2) throw missingArgs2("type", "listener");
    if (listener === null || listener === undefined) return;
    const o = typeof options === "object" && options !== null ? options : { capture: !!options };
    const capture = !!o.capture, once = !!o.once, signal = o.signal;
    if (signal !== undefined && !(signal instanceof AbortSignal)) {
      throw coded(TypeError, `The "options.signal" property must be an instance of AbortSignal. Received ${received(signal)}`, "ERR_INVALID_ARG_TYPE");
    }
    if (signal && signal.aborted) return;
    type = String(type);
    let list = this.#listeners.get(type);
    if (list === undefined) this.#listeners.set(type, list = []);
    if (list.some((l) => l.fn === listener && l.capture === capture)) return;
    list.push({ fn: listener, capture, once, removed: false });
    if (signal) signal.addEventListener("abort", () => this.removeEventListener(type, listener, { capture }), { once: true });
  }
  removeEventListener(type, listener, options = {}) {
    if (arguments.length < 2) throw missingArgs2("type", "listener");
    const capture = typeof options === "object" && options !== null ? !!options.capture : !!options;
    const list = this.#listeners.get(String(type));
    if (list === undefined) return;
    const i = list.findIndex((l) => l.fn === listener && l.capture === capture);
    if (i < 0) return;
    list[i].removed = true;
    list.splice(i, 1);
  }
  dispatchEvent(event) {
    if (!(event instanceof Event)) {
      throw coded(TypeError, `The "event" argument must be an instance of Event. Received ${received(event)}`, "ERR_INVALID_ARG_TYPE");
    }
    const list = this.#listeners.get(event.type);
    const ok = eventDispatch(event, this, (stopped) => {
      if (list === undefined) return;
      for (const l of list.slice()) {
        if (l.removed) continue;
        if (l.once) this.removeEventListener(event.type, l.fn, { capture: l.capture });
        try {
          if (typeof l.fn === "function") l.fn.call(this, event);
          else if (l.fn && typeof l.fn.handleEvent === "function") l.fn.handleEvent(event);
        } catch (e) {
          reportListenerError(e);
        }
        if (stopped()) break;
      }
    });
    if (!ok) throw new DOMException("The event is already being dispatched", "InvalidStateError");
    return !event.defaultPrevented;
  }
  get [Symbol.toStringTag]() { return "EventTarget"; }
}
const missingArgs2 = (a, b) => coded(TypeError, `The "${a}" and "${b}" arguments must be specified`, "ERR_MISSING_ARGS");

// ---- abort
let signalAbort;
const signalKey = Symbol("AbortSignal");
const signalNew = () => new AbortSignal(signalKey);
const abortError = () => new DOMException("This operation was aborted", "AbortError");

class AbortSignal extends EventTarget {
  #aborted = false;
  #reason = undefined;
  #onabort = null;
  #dependents = [];
  static {
    signalAbort = (s, reason) => {
      if (s.#aborted) return;
      s.#aborted = true;
      s.#reason = reason === undefined ? abortError() : reason;
      s.dispatchEvent(eventTrust(new Event("abort")));
      for (const d of s.#dependents) signalAbort(d, s.#reason);
      s.#dependents = [];
    };
  }
  constructor(key) {
    if (key !== signalKey) throw coded(TypeError, "Illegal constructor", "ERR_ILLEGAL_CONSTRUCTOR");
    super();
  }
  get aborted() { return this.#aborted; }
  get reason() { return this.#reason; }
  throwIfAborted() { if (this.#aborted) throw this.#reason; }
  get onabort() { return this.#onabort; }
  set onabort(fn) {
    if (this.#onabort === null && typeof fn === "function") {
      this.addEventListener("abort", (ev) => {
        if (typeof this.#onabort === "function") this.#onabort.call(this, ev);
      });
    }
    this.#onabort = typeof fn === "function" || (typeof fn === "object" && fn !== null) ? fn : null;
  }
  static abort(reason) {
    const s = signalNew();
    signalAbort(s, reason);
    return s;
  }
  static timeout(delay) {
    if (typeof delay !== "number") {
      throw coded(TypeError, `The "delay" argument must be of type number. Received ${received(delay)}`, "ERR_INVALID_ARG_TYPE");
    }
    if (!(delay >= 0 && delay <= 4294967295) || !Number.isInteger(delay)) {
      throw coded(RangeError, `The value of "delay" is out of range. It must be >= 0 && <= 4294967295. Received ${delay}`, "ERR_OUT_OF_RANGE");
    }
    const s = signalNew();
    g.setTimeout(() => signalAbort(s, new DOMException("The operation was aborted due to timeout", "TimeoutError")), delay);
    return s;
  }
  static any(signals) {
    if (!Array.isArray(signals)) {
      throw coded(TypeError, `The "signals" argument must be an instance of Array. Received ${received(signals)}`, "ERR_INVALID_ARG_TYPE");
    }
    signals.forEach((x, i) => {
      if (!(x instanceof AbortSignal)) {
        throw coded(TypeError, `The "signals[${i}]" argument must be an instance of AbortSignal. Received ${received(x)}`, "ERR_INVALID_ARG_TYPE");
      }
    });
    const s = signalNew();
    for (const x of signals) {
      if (x.#aborted) {
        signalAbort(s, x.#reason);
        return s;
      }
    }
    for (const x of signals) x.#dependents.push(s);
    return s;
  }
  get [Symbol.toStringTag]() { return "AbortSignal"; }
}

class AbortController {
  #signal = signalNew();
  get signal() { return this.#signal; }
  abort(reason) { signalAbort(this.#signal, reason); }
  get [Symbol.toStringTag]() { return "AbortController"; }
}

web("Event", Event);
web("CustomEvent", CustomEvent);
web("EventTarget", EventTarget);
web("AbortSignal", AbortSignal);
web("AbortController", AbortController);
