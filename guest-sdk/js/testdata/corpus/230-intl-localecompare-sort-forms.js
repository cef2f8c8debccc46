// Sorting with a comparator that only calls localeCompare (the forms
// scripts write: arrows, blocks, function expressions, ascending and
// descending, with a locale literal) gives Node's order on many inputs;
// airlock sorts such arrays by collation keys without calling the
// comparator. Arrays it must not sort that way (holes, numbers, objects,
// strings holding NUL or longer than a key, a frozen array, a subclass, a
// comparator with side effects or a comment) still sort as written.
let seed = 230;
const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
const ALPHA = "aAbBcCdeEéÉèfghiIjklmnoOöÖpqrsßtuUüvwxyzZ0123456789 -_.'ÅåæÆçÇñÑ";
const words = (n, len) => {
  const out = [];
  for (let i = 0; i < n; i++) {
    let s = "";
    for (let k = 1 + rnd(len); k > 0; k--) s += ALPHA[rnd(ALPHA.length)];
    out.push(s);
  }
  return out;
};
// Every element of small arrays, every fifth of larger ones.
const digest = (a) => a.length + ":" + (a.length <= 100 ? a : a.filter((_, i) => i % 5 === 0)).join("|");
const forms = [
  (a, b) => a.localeCompare(b),
  (x, y) => y.localeCompare(x),
  (a, b) => { return a.localeCompare(b); },
  (a,b)=>b.localeCompare(a),
  function (a, b) { return a.localeCompare(b); },
  function byName(p, q) { return q.localeCompare(p) },
  (a, b) => a.localeCompare(b, "de"),
  (a, b) => b.localeCompare(a, 'sv'),
  (a, b) => a.localeCompare(b, "tr"),
  (a, b) => a.localeCompare(b, "en-US"),
  (a, b) => a.localeCompare(a),
  (a, b) => /* reversed */ b.localeCompare(a),
  (a, b) => a.localeCompare(b) || a.length - b.length,
];
const out = [];
// The last form is not recognised (it calls the comparator): small sizes.
for (const size of [0, 1, 2, 3, 10, 100, 400]) {
  const base = words(size, 12);
  for (let f = 0; f < forms.length; f++) {
    if (f < forms.length - 1 || size <= 100) out.push(`${size} ${f} ${digest(base.slice().sort(forms[f]))}`);
  }
}
// Duplicates, equal under collation and not: the sort stays stable.
const dups = [];
for (let i = 0; i < 200; i++) dups.push(["a", "A", "á", "b", "B", "ss", "ß", "", " ", "a", "résumé", "resume"][rnd(12)]);
for (let f = 0; f < forms.length; f++) out.push(`dups ${f} ${dups.slice().sort(forms[f]).join(",")}`);
// Arrays sorted as written.
const asc = forms[0];
const mixed = ["b", 10, "a", 2, "B"];
out.push(JSON.stringify(mixed.slice().sort((a, b) => String(a).localeCompare(String(b)))));
try { out.push(JSON.stringify(["b", 1, "a"].sort(asc))); } catch (e) { out.push(e.name + ": " + e.message); }
out.push(JSON.stringify(["b", "a\u0000z", "a", "a\u0000b"].sort(asc)));
const long = ["b".repeat(1100), "a".repeat(1100), "c", "a"];
out.push(long.sort(asc).map((s) => s[0] + s.length).join(","));
const holes = ["c", , "a", undefined, "b"];
out.push(JSON.stringify(holes.sort(asc)), holes.length, 1 in holes);
try { Object.freeze(["b", "a"]).sort(asc); } catch (e) { out.push(e.name); }
class Words extends Array {}
out.push(JSON.stringify(Words.from(["b", "a", "C"]).sort(asc)));
let calls = 0;
out.push(JSON.stringify(["b", "a", "c"].sort((a, b) => { calls++; return a.localeCompare(b); })), calls > 0);
out.push(JSON.stringify(["b", "a", "c"].sort((a, b) => a.localeCompare(b) // comment
)));
try { ["b", "a"].sort((a, b) => a.localeCompare(b, "en-u-co-phonebk-x-bad-!")); } catch (e) { out.push(e.name); }
const saved = String.prototype.localeCompare;
String.prototype.localeCompare = function (that) { return this < that ? 1 : this > that ? -1 : 0; };
out.push(JSON.stringify(["a", "c", "b"].sort(asc)));
String.prototype.localeCompare = saved;
out.push(JSON.stringify(["a", "c", "b"].sort(asc)));
console.log(out.slice(-14).join("\n"));
return out;
