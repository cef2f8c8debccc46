// V8's words for errors the engine words its own way: private members,
// BigInt in JSON, Array.prototype.with, destructuring of null/undefined
// into arrays and for...of, Promise.any's AggregateError.
const out = [];
const attempt = (label, f) => {
  try {
    out.push(label + ": " + JSON.stringify(f()));
  } catch (e) {
    const at = /script\.js:(\d+):(\d+)/.exec(e.stack);
    out.push(label + ": " + e.name + ": " + e.message + (at ? " @" + at[1] + ":" + at[2] : ""));
  }
};
class Account {
  #balance = 0;
  static #opened = 0;
  #audit() { return "ok"; }
  get #label() { return "acct"; }
  static balanceOf(o) { return o.#balance; }
  static reset(o) { o.#balance = 0; }
  static deposit(o, n) { o.#balance += n; }
  static audit(o) { return o.#audit(); }
  static label(o) { return o.#label; }
  static opened(o) { return o.#opened; }
  static open(o) { o.#opened = 1; }
  static isAccount(o) { return #balance in o; }
}
attempt("private read", () => Account.balanceOf({}));
attempt("private write", () => Account.reset({ balance: 1 }));
attempt("private compound", () => Account.deposit({}, 5));
attempt("private method", () => Account.audit([]));
attempt("private getter", () => Account.label(new Date(0)));
attempt("static read", () => Account.opened({}));
attempt("static write", () => Account.open(new Account()));
attempt("brand check", () => Account.isAccount({}));
attempt("own instance", () => Account.balanceOf(new Account()));
attempt("bigint", () => JSON.stringify({ total: 10n }));
attempt("bigint nested", () => JSON.stringify({ rows: [{ id: 1, big: 2n ** 64n }] }));
attempt("bigint array", () => JSON.stringify([1, 2n]));
attempt("bigint object", () => JSON.stringify(Object(3n)));
attempt("bigint ok", () => JSON.stringify({ n: 1n }, (k, v) => (typeof v === "bigint" ? String(v) : v)));
attempt("with past end", () => [1, 2, 3].with(3, 0));
attempt("with far", () => ["a", "b"].with(10, "z"));
attempt("with negative", () => [1, 2, 3].with(-4, 0));
attempt("with fraction", () => [1, 2, 3].with(3.5, 0));
attempt("with ok", () => [1, 2, 3].with(-1, 9));
attempt("typed with", () => new Uint8Array(2).with(2, 1));
attempt("array pattern of undefined", () => { let pair; const [a, b] = pair; return a + b; });
attempt("array pattern of null", () => { const [first] = null; return first; });
attempt("array pattern literal undefined", () => { const [x] = undefined; return x; });
attempt("array assignment of null", () => { let a; [a] = null; return a; });
attempt("for-of undefined", () => { for (const v of undefined) return v; });
attempt("for-of null name", () => { const items = null; for (const v of items) return v; });
attempt("object pattern null", () => { const { id } = null; return id; });
attempt("object pattern undefined", () => { const { id, name } = undefined; return id + name; });
const settle = async (label, p) => {
  try {
    out.push(label + ": " + JSON.stringify(await p));
  } catch (e) {
    out.push(label + ": " + e.name + ": " + e.message + " " + JSON.stringify(e.errors));
  }
};
await settle("any rejected", Promise.any([Promise.reject(1), Promise.reject(2)]));
await settle("any empty", Promise.any([]));
await settle("any first", Promise.any([Promise.reject(1), Promise.resolve("x")]));
await settle("any string", Promise.any("ab"));
await settle("any not iterable", Promise.any(5).catch((e) => { throw new Error(e.constructor.name); }));
for (const line of out) console.log(line);
const e = await Promise.any([Promise.reject(new Error("down"))]).catch((x) => x);
console.log(e.stack);
console.log(String(e), Object.keys(e), e instanceof AggregateError);
return out.length;
