// Spreading strings where the prototype chain, setters and excluded keys
// could interfere: own indices win over String.prototype, spread defines
// (never sets), rest skips the keys already taken, and every kind of
// string (built by concatenation, one byte or two per character, lone
// surrogates) spreads its UTF-16 units.
Object.defineProperty(String.prototype, "0", { get() { throw new Error("prototype getter ran"); }, configurable: true });
String.prototype.extra = "inherited";
let setterRan = false;
Object.defineProperty(Object.prototype, "1", { set(v) { setterRan = true; }, configurable: true });
const s = { ..."xy" };
const line = JSON.stringify(s) + " " + setterRan + " " + ("extra" in s) + " " + Object.keys(s).join();
delete String.prototype[0];
delete String.prototype.extra;
delete Object.prototype[1];
console.log(line);

// Object.assign sets, and a string source is converted the same way.
const target = Object.assign({}, "ab", "c");
console.log(JSON.stringify(target));

// Rest with computed and numeric keys already taken.
const k = "1";
const { [k]: one, 3: three, ...rest } = "abcdef";
console.log(one, three, JSON.stringify(rest));

// A string built piece by piece, then spread.
let built = "";
for (let i = 0; i < 50; i++) built += String.fromCharCode(97 + (i % 26));
const b = { ...built };
console.log(Object.keys(b).length, b[0] + b[25] + b[49]);

// One byte and two bytes per character, lone surrogates.
const wide = { ..."ä€\ud800x\udc00" };
console.log(Object.keys(wide).length, [...Object.values(wide)].map((c) => c.charCodeAt(0).toString(16)).join(" "));

// A large string spreads all its indices.
const big = { ..."z".repeat(5000) };
console.log(Object.keys(big).length, big[4999]);

// Spread inside a class field and a getter, and of a frozen String object.
class C { f = { ..."hi" }; get g() { return { ...this.f, ..."J" }; } }
console.log(JSON.stringify(new C().g), JSON.stringify({ ...Object.freeze(Object("fz")) }));
