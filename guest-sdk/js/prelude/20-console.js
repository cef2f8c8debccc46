// Part of the prelude: console capture.
// ---- console ----------------------------------------------------------
const LOG_DEBUG = 0, LOG_INFO = 1, LOG_WARN = 2, LOG_ERROR = 3;
function show(v) {
  if (typeof v === "string") return v;
  if (v instanceof Error) return v.stack ? `${v.name}: ${v.message}\n${v.stack}`.trimEnd() : `${v.name}: ${v.message}`;
  if (v === undefined || typeof v === "function" || typeof v === "symbol" || typeof v === "bigint") return String(v);
  try {
    const s = JSON.stringify(v);
    return s === undefined ? String(v) : s;
  } catch (_) {
    return String(v);
  }
}
const logger = (level) => (...args) => { host(OP_LOG, level, noNul(args.map(show).join(" "))); };
const console = Object.freeze({
  log: logger(LOG_INFO), info: logger(LOG_INFO), debug: logger(LOG_DEBUG),
  warn: logger(LOG_WARN), error: logger(LOG_ERROR), trace: logger(LOG_DEBUG),
});

fixed("console", console);
