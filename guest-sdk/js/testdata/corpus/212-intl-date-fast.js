// Dates formatted through compiled requests: instances, and the toLocale…
// methods cached per locale, interleaved with options that differ.
const dates = [0, 1700000000000, -1e12, 951782400000, 4102444799999, 1e15, -62198755200000].map((t) => new Date(t));
const locales = ["en-US", "en-GB", "de-DE", "fr-FR", "ja-JP", "ar-EG", "hi-IN", undefined];
const out = [];
for (const l of locales) {
  for (const d of dates) {
    out.push([d.toLocaleString(l), d.toLocaleDateString(l), d.toLocaleTimeString(l),
      d.toLocaleString(l, { timeZone: "America/New_York" }), d.toLocaleDateString(l, { month: "long" }),
      d.toLocaleTimeString(l, { hour12: false }), d.toLocaleString(l)].join(" | "));
  }
  for (const o of [{ dateStyle: "full" }, { timeStyle: "medium", timeZone: "Asia/Kolkata" }, { weekday: "short", hour: "numeric" }]) {
    const f = new Intl.DateTimeFormat(l, o);
    out.push(dates.map((d) => f.format(d)).join(" | "));
  }
}
const f = new Intl.DateTimeFormat("en-US");
out.push(f.format(1.9), f.format(-1.5), f.format());
try { f.format(NaN); } catch (e) { out.push(e.name + ": " + e.message); }
try { new Date(0).toLocaleString("en-", {}); } catch (e) { out.push(e.name + ": " + e.message); }
try { new Date(0).toLocaleString("en-"); } catch (e) { out.push(e.name + ": " + e.message); }
out.push(new Date(NaN).toLocaleString("en-US"));
console.log(out[0]);
return out;
