// Intl constructors called without new: NumberFormat, DateTimeFormat and
// Collator return a new instance (legacy), the others throw TypeError;
// length, name, prototype and subclassing as in Node.
const t = (f) => { try { const v = f(); return typeof v === "object" ? Object.prototype.toString.call(v) + " " + JSON.stringify(v) : String(v); } catch (e) { return "!" + e.name + ": " + e.message; } };
for (const n of ["NumberFormat", "DateTimeFormat", "Collator", "PluralRules", "RelativeTimeFormat", "ListFormat", "Segmenter"]) {
  console.log(n, t(() => Intl[n]()), t(() => Intl[n]("de").resolvedOptions().locale), t(() => Intl[n].length), t(() => Intl[n].name),
    t(() => Intl[n].prototype.constructor === Intl[n]), t(() => Intl[n]("en") instanceof Intl[n]), t(() => Intl[n].call({}, "en") instanceof Intl[n]),
    t(() => Object.getOwnPropertyNames(Intl[n])), t(() => Object.getOwnPropertyDescriptor(Intl[n], "prototype").writable));
}
class My extends Intl.NumberFormat { constructor() { super("de"); } }
console.log(new My().format(1234.5), new My() instanceof Intl.NumberFormat, Object.getPrototypeOf(new My()) === My.prototype);
console.log(t(() => Intl.NumberFormat.prototype.resolvedOptions.call(1)), t(() => Intl.NumberFormat.prototype.formatToParts.call(true, 1)));
console.log(t(() => Intl.Collator().compare("a", "b")), t(() => Intl.DateTimeFormat("en", {timeZone: "UTC"}).format(0)));
console.log(t(() => new Intl.NumberFormat() instanceof Object), t(() => Reflect.construct(Intl.NumberFormat, ["en"], Array).resolvedOptions));
return [Intl.NumberFormat("de").format(1234.5), Intl.Collator("de").compare("ä", "b"), Intl.DateTimeFormat.supportedLocalesOf(["de-DE"])];
