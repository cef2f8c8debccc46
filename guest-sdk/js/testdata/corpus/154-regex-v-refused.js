// v-flag forms airlock cannot run exactly are refused with a SyntaxError
// (README.md, "Differences from Node"): set operations on strings,
// properties of strings, and with the i flag set operations, negated
// classes, \P and \W. Node runs them.
const forms = [
  ["[\\q{ab}--\\q{ab}]", "ab", "gv"],
  ["[\\q{abc|a}&&\\q{a}]", "abc", "gv"],
  ["^\\p{RGI_Emoji}$", "👍🏽", "v"],
  ["\\p{Emoji_Keycap_Sequence}", "1️⃣", "v"],
  ["[\\w--\\d]", "A1", "gvi"],
  ["[^a-c]", "abcD", "gvi"],
  ["\\P{Lu}", "aB", "gvi"],
  ["\\W", "a!", "gvi"],
];
const out = [];
for (const [src, input, flags] of forms) {
  try {
    out.push(JSON.stringify(input.match(new RegExp(src, flags))));
  } catch (e) {
    out.push(e.name);
  }
}
console.log(out.join(" "));
return out;
