// Arguments of every shape the host may write itself or must leave to
// JSON.stringify: what the tool receives is what Node's receives.
const results = [];
async function send(label, args) {
  try {
    results.push([label, await tools.echo(args)]);
  } catch (e) {
    results.push([label, e.name]);
  }
}
const deleted = { a: 1, b: 2, c: 3 };
delete deleted.b;
deleted.b = 4;
const nullProto = Object.assign(Object.create(null), { z: 1, y: [true, null] });
const hidden = Object.defineProperty({ v: 1 }, "h", { value: 2, enumerable: false });
const withSym = { s: 1, [Symbol("x")]: 2 };
class Base { constructor(o) { return o; } }
class Stamp extends Base { #p = 1; constructor(o) { super(o); } }
const stamped = new Stamp({ st: 1 });
const extra = Object.assign([1, 2], { extra: 3 });
const shrunk = [1, 2, 3];
shrunk.length = 2;
const long = [1];
long.length = 3;
const frozen = Object.freeze({ f: Object.freeze([1, { g: 2 }]) });
const rope = "é".repeat(300) + "名".repeat(300) + "\ud83c" + "\udf89".repeat(2);
await send("order", { b: 1, 2: 2, a: 3, 1: 4, "-1": 5, "01": 6, "1.5": 7 });
await send("deleted", deleted);
await send("null proto", nullProto);
await send("hidden", hidden);
await send("symbols", withSym);
await send("private", stamped);
await send("array extra", extra);
await send("shrunk", shrunk);
await send("long", long);
await send("holes", [1, , 3]);
await send("frozen", frozen);
await send("numbers", [0, -0, 1e21, 1e-7, 5e-324, 2 ** 53, 0.1 + 0.2, -1e-7, 123e-20, 2 ** 31, NaN, -Infinity]);
await send("strings", { s: "\"\\\b\f\n\r\t\u0000\u001f\u007f\u2028\u2029", lone: "\ud800x\udc00", rope });
await send("undefined", { u: undefined, a: [undefined, () => 1, Symbol()], f() {} });
await send("regexp exec", /a(b)/.exec("ab"));
await send("nested toJSON", { d: new Date(0), t: { toJSON: (k) => "key " + k } });
await send("bigint", { n: 1n });
// (Only for the marked object: the harness stringifies too.)
Object.prototype.toJSON = function (k) { return this.marked ? { proto: k } : this; };
await send("Object.prototype.toJSON", { a: 1, m: { marked: true } });
delete Object.prototype.toJSON;
await send("after delete", { a: 1 });
Object.defineProperty(Array.prototype, "toJSON", { configurable: true, get() { return () => "from getter"; } });
await send("Array.prototype getter", { a: [1] });
delete Array.prototype.toJSON;
await send("after array delete", { a: [1] });
for (const [label, v] of results) console.log(label, JSON.stringify(v));
