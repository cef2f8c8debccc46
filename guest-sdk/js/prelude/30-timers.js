// Part of the prelude: timers. The host owns the clock and the wait
// (ABI.md, "Timers"): the prelude keeps the timers in a heap ordered by due
// time and creation, tells the host the earliest due time whenever it
// changes (OP_TIMER), and runs one due timer each time the host's event
// loop asks for one (__airlock_pump with no completion to deliver), so the
// job queue drains between two callbacks as in Node.
const TIMEOUT_MAX = 2147483647; // Node's: longer or invalid delays mean 1 ms
const NOW = -2, NONE = -1;
const heap = []; // timers, min-heap by (due, seq)
const live = new Map(); // id -> timer, until it fires for good or is cleared
let timerSeq = 0, lastTimerId = 0, reported = NONE;

const nowMs = () => host(OP_TIMER, NOW);
const before = (a, b) => a.due < b.due || (a.due === b.due && a.seq < b.seq);

function heapPush(t) {
  let i = heap.length;
  heap.push(t);
  while (i > 0) {
    const p = (i - 1) >> 1;
    if (!before(heap[i], heap[p])) break;
    [heap[i], heap[p]] = [heap[p], heap[i]];
    i = p;
  }
}

function heapPop() {
  const top = heap[0], last = heap.pop();
  if (heap.length > 0) {
    heap[0] = last;
    for (let i = 0; ;) {
      const l = 2 * i + 1, r = l + 1;
      let m = i;
      if (l < heap.length && before(heap[l], heap[m])) m = l;
      if (r < heap.length && before(heap[r], heap[m])) m = r;
      if (m === i) break;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  }
  return top;
}

// report tells the host the earliest due time, when it changed. Cleared
// timers leave the heap's top first, so that a chain waiting for nothing
// is told so without waiting for a timer that will not fire.
function report() {
  while (heap.length > 0 && heap[0].cleared) heapPop();
  // An int32 (| 0): the host reads whole milliseconds.
  const due = heap.length > 0 ? Math.min(Math.ceil(heap[0].due), TIMEOUT_MAX) | 0 : NONE;
  if (due !== reported) {
    reported = due;
    host(OP_TIMER, due);
  }
}

// Timeout is what setTimeout and setInterval return, as in Node: an object
// whose primitive value is its id, so that clearTimeout takes either.
class Timeout {
  constructor(id) { timerState.set(this, id); }
  ref() { return this; }
  unref() { return this; }
  hasRef() { return true; }
  refresh() {
    const t = live.get(timerState.get(this));
    if (t !== undefined) {
      t.cleared = true;
      const n = { ...t, cleared: false, due: nowMs() + t.ms, seq: ++timerSeq };
      live.set(n.id, n);
      heapPush(n);
      report();
    }
    return this;
  }
  close() { clearTimer(this); return this; }
  [Symbol.toPrimitive]() { return timerState.get(this); }
}
const timerState = new WeakMap();

class Immediate {
  constructor(id) { timerState.set(this, id); }
  ref() { return this; }
  unref() { return this; }
  hasRef() { return true; }
}

function checkCallback(cb) {
  if (typeof cb !== "function") {
    const got = cb === undefined || cb === null ? String(cb) : `type ${typeof cb}`;
    const e = new TypeError(`The "callback" argument must be of type function. Received ${got}`);
    e.code = "ERR_INVALID_ARG_TYPE";
    throw e;
  }
}

function addTimer(cb, ms, repeat, args, Handle) {
  checkCallback(cb);
  ms = Number(ms);
  if (!(ms >= 1 && ms <= TIMEOUT_MAX)) ms = Handle === Immediate ? 0 : 1;
  const t = { id: ++lastTimerId, cb, args, ms, repeat, due: nowMs() + ms, seq: ++timerSeq, cleared: false };
  live.set(t.id, t);
  heapPush(t);
  report();
  return new Handle(t.id);
}

function clearTimer(handle) {
  if (handle === null || handle === undefined) return;
  const id = typeof handle === "object" ? timerState.get(handle) : Number(handle);
  const t = live.get(id);
  if (t === undefined) return;
  live.delete(id);
  t.cleared = true;
  report();
}

// runTimer runs the earliest timer if it is due and reports the next one.
// An exception it throws fails the run, as an uncaught exception ends a
// Node process.
function runTimer() {
  const now = nowMs();
  while (heap.length > 0 && heap[0].cleared) heapPop();
  if (heap.length === 0 || heap[0].due > now) {
    report();
    return;
  }
  const t = heapPop();
  if (t.repeat) {
    t.due = now + t.ms;
    t.seq = ++timerSeq;
    heapPush(t);
  } else {
    live.delete(t.id);
  }
  report();
  try {
    t.cb.apply(undefined, t.args);
  } catch (e) {
    fail(e);
  }
}

web("setTimeout", function setTimeout(cb, ms, ...args) { return addTimer(cb, ms, false, args, Timeout); });
web("setInterval", function setInterval(cb, ms, ...args) { return addTimer(cb, ms, true, args, Timeout); });
web("setImmediate", function setImmediate(cb, ...args) { return addTimer(cb, 0, false, args, Immediate); });
web("clearTimeout", function clearTimeout(t) { clearTimer(t); });
web("clearInterval", function clearInterval(t) { clearTimer(t); });
web("clearImmediate", function clearImmediate(t) { clearTimer(t); });
