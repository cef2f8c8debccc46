// Calling Intl.PluralRules without new fails the script as in Node.
const nf = Intl.NumberFormat("en", { style: "percent" });
console.log(nf.format(0.5));
const rules = Intl.PluralRules("en");
return rules.select(1);
