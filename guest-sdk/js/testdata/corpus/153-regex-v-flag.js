// The v flag's set notation and Unicode mode, in literals and in
// new RegExp: differences, intersections, nested classes, \q{} strings,
// properties, astral characters; and the forms refused with a SyntaxError.
const text = "Ünïcode: aB3_xé Z9 😀 Ωmega; naïve café, ΑΒΓ 123 ½";
const out = [];
const show = (label, f) => {
  try {
    out.push(label + ": " + JSON.stringify(f()));
  } catch (e) {
    out.push(label + ": " + e.name + ": " + e.message);
  }
};
show("word minus digit literal", () => text.match(/[\w--\d]/gv));
show("letters literal", () => text.match(/\p{L}+/gv));
show("not letters literal", () => text.replace(/\P{L}/gv, ""));
show("astral dot literal", () => "a😀b".match(/./gv));
show("split empty literal", () => "x😀y".split(/(?:)/v));
show("word and not digit literal", () => text.replace(/[\w&&\D]/gv, "#"));
show("digits minus range literal", () => [/[\d--[5-9]]/v.test("7"), /[\d--[5-9]]/v.test("3")]);
show("named group literal", () => /(?<d>[\d--[0]])/v.exec("x09").groups.d);
show("flags literal", () => [/x/v.flags, /x/v.unicodeSets, /x/v.unicode, String(/[\w--\d]/gv)]);
show("test sticky literal", () => { const r = /\p{Lu}/vy; r.lastIndex = 9; return [r.test(text), r.lastIndex]; });
const cases = [
  ["[[a-z]--[aeiou]]", "abcdeiou"],
  ["[\\p{Lu}--[A-Z]]", text],
  ["[\\p{L}&&\\p{Script=Greek}]", text],
  ["[\\p{L}--\\p{Script=Greek}--\\p{Script=Latin}]", text],
  ["[[a-c][0-9]]", "a1-b2"],
  ["[\\q{abc|d}]", "xabcdx"],
  ["[\\q{a|ab|abc}x]", "abcabxa"],
  ["[^\\d--1]", "ab1"],
  ["[^[a-z]--[aeiou]]", "hello1"],
  ["[[a-z]--[aeiou]--[xyz]]", "abcxyz"],
  ["[[a-z]&&[aeiou]]", "hello world"],
  ["x|[\\d--[5]]", "1x5"],
  ["[\\w--[0-9]]", "a_1"],
  ["[\\d&&\\w]", "a1_2"],
  ["[\\p{ASCII}&&\\p{L}]", "aé1"],
  ["[\\s--\\n]", "a \n\tb"],
  ["[^\\w--\\d]", "a1!"],
  ["[\\&\\-\\!]", "a&-!"],
  ["^[\\p{N}--\\p{Nd}]$", "½"],
  ["[\\u{1F600}-\\u{1F64F}--\\u{1F610}]", "😀😐"],
  ["[a-c]", "ABC", "gvi"],
  ["\\p{Lu}", "aBc", "gvi"],
  ["\\p{Lu}+", "aBcDE", "gv"],
  ["[abc--b]", "abc"],
  ["[a-z&&aeiou]", "a"],
  ["[(]", "("],
  ["[a-]", "a"],
  ["[^\\q{ab}]", "ab"],
  ["[z-a]", "a"],
  ["a", "a", "vv"],
  ["a", "a", "uv"],
];
for (const [src, input, flags = "gv"] of cases) {
  show(`new RegExp(${JSON.stringify(src)}, "${flags}")`, () => input.match(new RegExp(src, flags)));
}
const re = new RegExp("[\\p{L}--[a-z]]", "gv");
show("exec loop", () => { const seen = []; let m; while ((m = re.exec(text)) !== null && seen.length < 6) seen.push(m[0] + "@" + m.index); return seen; });
show("matchAll", () => [...text.matchAll(new RegExp("[\\p{Ll}&&\\p{ASCII}]", "gv"))].length);
show("search", () => text.search(new RegExp("[\\p{Lu}--[A-Z]]", "v")));
show("replace fn", () => "a1b2c3".replace(new RegExp("[\\w--\\d]", "gv"), (c) => c.toUpperCase()));
show("split", () => "a1b2c3".split(new RegExp("[\\d--[2]]", "v")));
show("props", () => { const r = new RegExp("a/b[\\d--1]", "gv"); return [r.source, r.flags, r.global, r.unicode, r.unicodeSets, String(r), Object.keys(r)]; });
show("copy", () => [new RegExp(re).flags, new RegExp(re, "vy").flags, RegExp(re) === re, structuredClone(re).source]);
show("subclass", () => { class Re extends RegExp {} const r = new Re("[a--b]", "v"); return [r instanceof Re, r.test("a"), r.test("b")]; });
show("constructor", () => [/x/v.constructor === RegExp, re instanceof RegExp, RegExp.name, RegExp.length]);
for (const line of out) console.log(line);
console.log(re, [new RegExp("[\\q{x}]", "v")]);
return out.length;
