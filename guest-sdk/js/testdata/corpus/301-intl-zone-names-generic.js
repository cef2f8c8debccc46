// A travel assistant names zones the way a calendar does: generic names
// ("Pacific Time"), a zone's own summer name ("British Summer Time"), zones
// that left their metazone (Kyiv in 1985, Casablanca since 2018), zones
// with half-hour and odd daylight saving (Lord Howe), and fixed offsets.
const zones = ["America/Los_Angeles", "America/Phoenix", "Europe/London", "Europe/Dublin", "Europe/Kyiv",
  "Africa/Casablanca", "Australia/Lord_Howe", "Asia/Kathmandu", "Pacific/Honolulu", "Etc/GMT+5", "UTC"];
const when = [Date.UTC(2024, 0, 15, 12), Date.UTC(2024, 6, 15, 12), Date.UTC(1985, 6, 1), Date.UTC(2024, 2, 10, 10)];
const name = (locale, timeZone, timeZoneName, t) => new Intl.DateTimeFormat(locale, { timeZone, timeZoneName })
  .formatToParts(t).find((p) => p.type === "timeZoneName").value;
const table = {};
for (const z of zones) {
  table[z] = ["long", "longGeneric", "shortGeneric", "short"].map((style) =>
    when.map((t) => name("en-US", z, style, t)).join(" | "));
}
const german = zones.map((z) => name("de", z, "longGeneric", when[1]));
const japanese = zones.map((z) => name("ja", z, "shortGeneric", when[0]));
const card = new Date(when[1]).toLocaleString("en-GB", { timeZone: "Europe/London", dateStyle: "full", timeStyle: "full" });
const spanish = new Intl.DateTimeFormat("es-MX", { timeZone: "America/Mexico_City", hour: "numeric", minute: "2-digit", second: "2-digit", timeZoneName: "longGeneric" }).format(when[0]);
console.log(table["Europe/London"][0]);
return { table, german, japanese, card, spanish };
