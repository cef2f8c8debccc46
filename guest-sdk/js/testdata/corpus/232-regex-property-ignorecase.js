// Property escapes with the u and i flags match as ECMAScript says (a
// character matches when its case folding has the property), outside a
// class as inside one: /\p{Lu}/iu matches lower case letters too, and
// \p{Lt} title case digraphs in any case. Literals and new RegExp, every
// method that runs a pattern, and the same patterns without i or u.
const text = "aBcÉé1ǅǄǆ_ſKkKΣσςİıΩωΩ😀𝐀𝐚 Ⅻⅻⓐ";
const pats = ["\\p{Lu}", "\\p{Ll}", "\\p{Lt}", "\\P{Lu}", "\\P{Ll}", "[\\p{Lu}]", "[^\\p{Lu}]", "[\\P{Lu}]", "[^\\P{Lu}]",
  "\\p{Lu}+", "\\p{Uppercase}", "\\p{Lowercase}", "\\p{L}", "\\p{Script=Greek}", "\\P{Script=Latin}", "x|\\p{Lu}",
  "(?<u>\\p{Lu})\\k<u>", "[a-c]\\p{Lu}", "\\p{Lu}{2}", "\\\\p{Lu}", "[\\]\\p{Lu}]", "\\p{Nd}", "\\p{Changes_When_Casefolded}",
  "\\p{Cased}", "(?=\\p{Lu})\\w", "(?<=\\p{Ll})\\p{Lu}", "\\p{Other_Uppercase}", "\\p{Lu}\\P{Lu}", "^\\p{Lu}*$", "\\p{Ll}|[\\p{N}]"];
const out = [];
for (const p of pats) {
  for (const fl of ["giu", "gu", "gi"]) {
    try {
      out.push(p + "/" + fl + " " + JSON.stringify(text.match(new RegExp(p, fl))));
    } catch (e) {
      out.push(p + "/" + fl + " " + e.name);
    }
  }
}
out.push(JSON.stringify(text.match(/\p{Lu}/giu)), JSON.stringify("ǅx".replace(/\p{Lt}/iu, "T")), JSON.stringify("aBc".split(/\p{Lu}/iu)));
out.push(/\p{Lu}/iu.test("a"), /\p{Lu}/iu.exec("xyz")?.[0], String(/\p{Lu}/iu), /\p{Lu}/iu.source, "abc".search(/\p{Lu}/iu));
out.push(JSON.stringify([..."aBc".matchAll(/\p{Lu}/giu)].map((m) => m[0] + m.index)));
const sticky = /\p{Lu}/iuy;
sticky.lastIndex = 1;
out.push(sticky.test("aBc"), sticky.lastIndex);
out.push(JSON.stringify("aBc".replaceAll(/\p{Ll}/giu, "#")), /\p{Lu}/iu.flags, new RegExp(/\p{Ll}/iu).test("A"));
const words = ["Straße", "ÉCOLE", "ǅemal", "ωmega", "İstanbul", "ſun", "KELVIN", "lower"];
for (const w of words) out.push(w + " " + /^\p{Lu}/iu.test(w) + /^\p{Ll}+$/iu.test(w) + /\P{Ll}/iu.test(w) + /^[\p{Lu}\p{Ll}]+$/iu.test(w));
console.log(out.slice(0, 6).join("\n"));
return out;
