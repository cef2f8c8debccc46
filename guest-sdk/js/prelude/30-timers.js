// Part of the prelude: timers. The host owns the clock and the wait
// (ABI.md, "Timers"): the prelude keeps the timers, tells the host the
// earliest due time whenever it changes (OP_TIMER), and runs one callback
// each time the host's event loop asks for one (__airlock_pump with no
// completion to deliver), so the job queue drains between two callbacks as
// in Node. Immediates wait in their own queue and run before timers, as
// Node's check phase comes before the next timers phase. Times are
// milliseconds since the run began, with a fraction; they cross to the host
// as strings, so that no range is lost.
//
// Only built-ins captured here are used after the prelude ran: a script
// that replaces Math, Array or Map methods cannot make the loop spin.
const TIMEOUT_MAX = 2147483647; // Node's: longer or invalid delays mean 1 ms
const NOW = -2, NONE = -1;
const toNumber = Number;
const heap = []; // entries {t, gen, due, seq}: a min-heap by (due, seq)
let heapSize = 0, staleInHeap = 0;
const live = Object.create(null); // id -> pending Timeout record
const immediates = []; // pending Immediate records, first in first out
let immHead = 0;
const records = new WeakMap(); // Timeout or Immediate handle -> record
let timerSeq = 0, lastTimerId = 0, reported = "";

const nowMs = () => toNumber(host(OP_TIMER, NOW));
const before = (a, b) => a.due < b.due || (a.due === b.due && a.seq < b.seq);
const stale = (e) => e.gen !== e.t.gen || e.t.state !== PENDING;
const PENDING = 0, DONE = 1, CLEARED = 2;

function siftUp(i) {
  const e = heap[i];
  while (i > 0) {
    const p = (i - 1) >> 1;
    if (!before(e, heap[p])) break;
    heap[i] = heap[p];
    i = p;
  }
  heap[i] = e;
}

function siftDown(i) {
  const e = heap[i];
  for (;;) {
    const l = 2 * i + 1, r = l + 1;
    let m = l;
    if (l >= heapSize) break;
    if (r < heapSize && before(heap[r], heap[l])) m = r;
    if (!before(heap[m], e)) break;
    heap[i] = heap[m];
    i = m;
  }
  heap[i] = e;
}

function heapPush(t) {
  t.gen++;
  t.seq = ++timerSeq;
  heap[heapSize] = { t, gen: t.gen, due: t.due, seq: t.seq };
  siftUp(heapSize++);
}

function heapPop() {
  const top = heap[0];
  heapSize--;
  if (heapSize > 0) {
    heap[0] = heap[heapSize];
    siftDown(0);
  }
  heap[heapSize] = undefined;
  return top;
}

// dropStale removes the stale entries from the heap's top, and rebuilds the
// heap when most of it is stale, so that cleared timers do not pile up
// behind a live one.
function dropStale() {
  while (heapSize > 0 && stale(heap[0])) {
    heapPop();
    if (staleInHeap > 0) staleInHeap--;
  }
  if (staleInHeap > 64 && staleInHeap * 2 > heapSize) {
    let n = 0;
    for (let i = 0; i < heapSize; i++) if (!stale(heap[i])) heap[n++] = heap[i];
    for (let i = n; i < heapSize; i++) heap[i] = undefined;
    heapSize = n;
    staleInHeap = 0;
    for (let i = (n >> 1) - 1; i >= 0; i--) siftDown(i);
  }
}

// report tells the host the earliest due time, when it changed.
function report() {
  dropStale();
  while (immHead < immediates.length && immediates[immHead].state !== PENDING) immHead++;
  let due = heapSize > 0 ? heap[0].due : NONE;
  if (immHead < immediates.length && (due === NONE || immediates[immHead].due < due)) due = immediates[immHead].due;
  const text = due === NONE ? "" : "" + due;
  if (text !== reported) {
    reported = text;
    host(OP_TIMER, due === NONE ? NONE : text);
  }
}

// Timeout is what setTimeout and setInterval return, as in Node: an object
// whose primitive value is its id, so that clearTimeout takes either.
class Timeout {
  ref() { return this; }
  unref() { return this; }
  hasRef() { return true; }
  refresh() {
    const t = records.get(this);
    if (t !== undefined && t.state !== CLEARED) {
      if (t.state === PENDING) staleInHeap++;
      t.state = PENDING;
      live[t.id] = t;
      t.due = nowMs() + t.ms;
      heapPush(t);
      report();
    }
    return this;
  }
  close() { clearTimer(this, Timeout); return this; }
  [Symbol.toPrimitive]() { const t = records.get(this); return t === undefined ? NaN : t.id; }
}

class Immediate {
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

function addTimer(cb, ms, repeat, args) {
  checkCallback(cb);
  ms = toNumber(ms);
  if (!(ms >= 1 && ms <= TIMEOUT_MAX)) ms = 1;
  const handle = new Timeout();
  const t = { id: ++lastTimerId, cb, args, ms, repeat, due: nowMs() + ms, seq: 0, gen: 0, state: PENDING, handle };
  records.set(handle, t);
  live[t.id] = t;
  heapPush(t);
  report();
  return handle;
}

function addImmediate(cb, args) {
  checkCallback(cb);
  const handle = new Immediate();
  const t = { cb, args, due: nowMs(), state: PENDING, handle };
  records.set(handle, t);
  immediates[immediates.length] = t;
  report();
  return handle;
}

function clearTimer(h, Kind) {
  if (h === null || h === undefined) return;
  let t;
  if (typeof h === "object") {
    if (!(h instanceof Kind)) return;
    t = records.get(h);
  } else if (Kind === Timeout) {
    t = live[toNumber(h)];
  }
  if (t === undefined || t.state !== PENDING) return;
  t.state = CLEARED;
  if (Kind === Timeout) {
    delete live[t.id];
    staleInHeap++;
  }
  report();
}

// runTimer runs one due callback, an immediate before a timer, and
// reports the next due time. An exception it throws fails the run, as an
// uncaught exception ends a Node process.
function runTimer() {
  const now = nowMs();
  dropStale();
  while (immHead < immediates.length && immediates[immHead].state !== PENDING) immHead++;
  let t;
  if (immHead < immediates.length && immediates[immHead].due <= now) {
    t = immediates[immHead];
    immediates[immHead++] = undefined;
    if (immHead === immediates.length) { immediates.length = 0; immHead = 0; }
    t.state = DONE;
  } else if (heapSize > 0 && heap[0].due <= now) {
    t = heapPop().t;
    if (t.repeat) {
      t.due = now + t.ms;
      heapPush(t);
    } else {
      t.state = DONE;
      delete live[t.id];
    }
  }
  report();
  if (t === undefined) return;
  try {
    t.cb.apply(t.handle, t.args);
  } catch (e) {
    fail(e);
  }
}

web("setTimeout", function setTimeout(cb, ms, ...args) { return addTimer(cb, ms, false, args); });
web("setInterval", function setInterval(cb, ms, ...args) { return addTimer(cb, ms, true, args); });
web("setImmediate", function setImmediate(cb, ...args) { return addImmediate(cb, args); });
web("clearTimeout", function clearTimeout(t) { clearTimer(t, Timeout); });
web("clearInterval", function clearInterval(t) { clearTimer(t, Timeout); });
web("clearImmediate", function clearImmediate(t) { clearTimer(t, Immediate); });
