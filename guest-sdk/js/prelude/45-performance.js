// Part of the prelude: performance.mark, measure and the entry buffer,
// next to the engine's performance.now and timeOrigin.
// ---- performance --------------------------------------------------------
let entryNew;
const entryKey = Symbol("PerformanceEntry");
class PerformanceEntry {
  #name;
  #type;
  #start;
  #duration;
  static { entryNew = (e, name, type, start, duration) => { e.#name = name; e.#type = type; e.#start = start; e.#duration = duration; }; }
  constructor(key) {
    if (key !== entryKey) throw coded(TypeError, "Illegal constructor", "ERR_ILLEGAL_CONSTRUCTOR");
  }
  get name() { return this.#name; }
  get entryType() { return this.#type; }
  get startTime() { return this.#start; }
  get duration() { return this.#duration; }
  toJSON() { return { name: this.#name, entryType: this.#type, startTime: this.#start, duration: this.#duration }; }
  get [Symbol.toStringTag]() { return "PerformanceEntry"; }
}
const invalidTime = (t) => coded(TypeError, `${t} is not a valid timestamp`, "ERR_PERFORMANCE_INVALID_TIMESTAMP");
const checkTime = (t) => {
  if (typeof t !== "number" || !(t >= 0)) throw invalidTime(t);
  return t;
};

class PerformanceMark extends PerformanceEntry {
  #detail;
  constructor(name, options = undefined) {
    if (arguments.length < 1) throw missingArg("name");
    if (options !== undefined && (options === null || typeof options !== "object")) {
      throw coded(TypeError, `The "options" argument must be of type object. Received ${received(options)}`, "ERR_INVALID_ARG_TYPE");
    }
    super(entryKey);
    const start = options && options.startTime !== undefined ? checkTime(options.startTime) : performance.now();
    entryNew(this, String(name), "mark", start, 0);
    this.#detail = options && options.detail !== undefined ? structuredClone(options.detail) : null;
  }
  get detail() { return this.#detail; }
  toJSON() { return { ...super.toJSON(), detail: this.#detail }; }
  get [Symbol.toStringTag]() { return "PerformanceMark"; }
}

class PerformanceMeasure extends PerformanceEntry {
  #detail;
  constructor(key, name, start, duration, detail) {
    super(key);
    entryNew(this, name, "measure", start, duration);
    this.#detail = detail;
  }
  get detail() { return this.#detail; }
  toJSON() { return { ...super.toJSON(), detail: this.#detail }; }
  get [Symbol.toStringTag]() { return "PerformanceMeasure"; }
}

const perfEntries = []; // in the order they were made
const markTime = (m) => {
  if (typeof m === "number") return checkTime(m);
  const name = String(m);
  for (let i = perfEntries.length - 1; i >= 0; i--) {
    const e = perfEntries[i];
    if (e.entryType === "mark" && e.name === name) return e.startTime;
  }
  throw new DOMException(`The "${name}" performance mark has not been set`, "SyntaxError");
};
// byStart sorts entries as Node does: by start time, marks before
// measures, then in the order they were made.
const byStart = (list) => list.map((e, i) => [e, i]).sort(([a, i], [b, j]) => a.startTime - b.startTime ||
  (a.entryType === "mark" ? 0 : 1) - (b.entryType === "mark" ? 0 : 1) || i - j).map(([e]) => e);
const perfMethods = {
  mark(name, options) {
    if (arguments.length < 1) throw missingArg("name");
    const m = new PerformanceMark(name, options);
    perfEntries.push(m);
    return m;
  },
  measure(name, startOrOptions, endMark) {
    if (arguments.length < 1) throw missingArg("name");
    let start, end, detail = null;
    if (startOrOptions !== null && typeof startOrOptions === "object") {
      const o = startOrOptions;
      if (o.start !== undefined && o.end !== undefined && o.duration !== undefined) {
        throw coded(TypeError, "Must not have options.start, options.end, and options.duration specified", "ERR_PERFORMANCE_MEASURE_INVALID_OPTIONS");
      }
      const dur = o.duration !== undefined ? checkTime(o.duration) : undefined;
      end = o.end !== undefined ? markTime(o.end) : o.start !== undefined && dur !== undefined ? markTime(o.start) + dur : performance.now();
      start = o.start !== undefined ? markTime(o.start) : dur !== undefined ? end - dur : 0;
      if (o.detail !== undefined) detail = structuredClone(o.detail);
    } else {
      end = endMark !== undefined ? markTime(endMark) : performance.now();
      start = startOrOptions !== undefined ? markTime(startOrOptions) : 0;
    }
    const m = new PerformanceMeasure(entryKey, String(name), start, end - start, detail);
    perfEntries.push(m);
    return m;
  },
  getEntries() { return byStart(perfEntries); },
  getEntriesByName(name, type) {
    name = String(name);
    return byStart(perfEntries.filter((e) => e.name === name && (type === undefined || e.entryType === type)));
  },
  getEntriesByType(type) { return byStart(perfEntries.filter((e) => e.entryType === type)); },
  clearMarks(name) { clearEntries("mark", name); },
  clearMeasures(name) { clearEntries("measure", name); },
};
function clearEntries(type, name) {
  const keep = perfEntries.filter((e) => e.entryType !== type || (name !== undefined && e.name !== String(name)));
  perfEntries.length = 0;
  perfEntries.push(...keep);
}
for (const [k, f] of Object.entries(perfMethods)) {
  Object.defineProperty(performance, k, { value: f, writable: true, enumerable: false, configurable: true });
}

web("PerformanceEntry", PerformanceEntry);
web("PerformanceMark", PerformanceMark);
web("PerformanceMeasure", PerformanceMeasure);
nodeGlobal("performance", performance);
