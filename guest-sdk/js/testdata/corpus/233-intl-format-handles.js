// Numbers and dates formatted by a handle of the run's table of formats
// (OP_INTL_FORMAT) against Node's ICU: negatives, zero and -0, large
// values and exponent forms, fractions that round and carry, NaN and the
// infinities, in several locales, with plain and other options (percent,
// currency, compact, signs, significant digits), through toLocaleString
// (a locale string, none, a list, options) and NumberFormat.format
// (numbers, strings, BigInts, objects converted once); more distinct
// formats than the guest's caches and the run's table hold, so that
// formats past the table go by requests; and dates through
// DateTimeFormat.format and Date's toLocale*String.
let seed = 232;
const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
const xs = [0, -0, 1, -1, 7, -7, 0.5, -0.5, 1.5, 2.5, -2.5, 0.995, 9.995, -9.995, 999.5, 9999.5, 99999.95, 999999.995,
  0.001, -0.0004, 0.0000015, 1e-7, -1.5e-7, 5e-324, 1e21, -1e21, 1.5e21, 9.999999999999999e20, 123456789012345680000,
  1e300, -1.7976931348623157e308, 2 ** 31, -(2 ** 31), 2 ** 31 - 1, 2 ** 53, 0.1 + 0.2, 1 / 3, -2 / 3, 4294967295.5,
  NaN, Infinity, -Infinity];
for (let i = 0; i < 12; i++) xs.push(rnd(1e9) / 100, -rnd(1e7) / 7, rnd(1e6), -rnd(1e12) / 1e3, rnd(1000) / 1e5);
const digest = (a) => {
  let h = 0;
  const s = a.join("|");
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) >>> 0;
  return h.toString(16) + " " + a.filter((_, i) => i % 23 === 0).join(" ");
};
const out = [];
const locales = ["en-US", "de-DE", "fr-FR", "pl-PL", "en-IN", "ar-EG"];
const opts = [undefined, { maximumFractionDigits: 0 }, { minimumFractionDigits: 2, maximumFractionDigits: 2 },
  { style: "percent" }, { style: "currency", currency: "EUR" }, { notation: "compact" }, { signDisplay: "always" },
  { maximumSignificantDigits: 3 }, { useGrouping: false, maximumFractionDigits: 20 }];
for (const l of locales) {
  out.push(l + " " + digest(xs.map((x) => x.toLocaleString(l))));
  for (const o of opts) {
    const nf = new Intl.NumberFormat(l, o);
    const viaFormat = xs.map((x) => nf.format(x));
    out.push(`${l} ${JSON.stringify(o)} ${digest(viaFormat)}`);
    const some = xs.filter((_, i) => i % 4 === 0);
    if (some.map((x) => x.toLocaleString(l, o)).join(" ") !== some.map((x) => nf.format(x)).join(" ")) out.push("toLocaleString differs");
  }
}
out.push(digest(xs.map((x) => x.toLocaleString())));
out.push(digest(xs.map((x) => x.toLocaleString(["de-CH", "en"]))));
out.push(digest(xs.map((x) => new Number(x).toLocaleString("en-IN"))));
const nf = new Intl.NumberFormat("en-US", { maximumFractionDigits: 3 });
let conversions = 0;
out.push([nf.format("1234.56789"), nf.format(12345678901234567890n), nf.format(true), nf.format(null), nf.format(),
  nf.format({ valueOf() { conversions++; return -2.5; } }), conversions].join(" "));
try { Number.prototype.toLocaleString.call("1", "en-US"); } catch (e) { out.push(e.name); }
try { (1).toLocaleString("en-US", { maximumFractionDigits: 200 }); } catch (e) { out.push(e.name); }
// 200 more distinct formats, past the guest's caches (64) and the run's
// table (256 in all): each formats as Node's.
const many = [];
for (let i = 0; i < 100; i++) {
  const o = { minimumFractionDigits: i % 4, maximumFractionDigits: 4 + (i % 7), minimumIntegerDigits: 1 + (i % 5) };
  many.push(xs[i % xs.length].toLocaleString(locales[i % locales.length], o));
  many.push(new Intl.NumberFormat(locales[(i + 1) % locales.length], o).format(xs[(i * 7) % xs.length]));
}
for (let i = 0; i < 100; i++) many.push(xs[i % xs.length].toLocaleString(locales[i % locales.length], { maximumFractionDigits: i % 10 }));
out.push(digest(many));
const ds = [0, -1, 1.5, 1e12, -8.64e15, 8.64e15, 1700000000123];
for (let i = 0; i < 30; i++) ds.push(rnd(2e9) * 1000 - 5e11);
const df = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short" });
out.push(digest(ds.map((d) => df.format(d))));
out.push(digest(ds.map((d) => new Date(d).toLocaleString("de-DE"))));
out.push(digest(ds.map((d) => new Date(d).toLocaleDateString(undefined, { month: "long", day: "numeric" }))));
out.push(digest(ds.map((d) => new Date(d).toLocaleTimeString("fr-FR"))));
out.push(new Date(NaN).toLocaleString("en-US"));
try { df.format(NaN); } catch (e) { out.push(e.name); }
return out;
