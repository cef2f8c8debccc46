// A hotel booking summary, as a model writes it for a confirmation page:
// each stay's dates as a range (formatRange collapses the month and year
// the two dates share), the check-in window as a time range, and the
// nights counted from the two dates.
const bookings = [
  { guest: "Ana Ruiz", hotel: "Harbor View", checkIn: "2024-03-08", checkOut: "2024-03-11", locale: "en-US" },
  { guest: "Lukas Meyer", hotel: "Alpenhof", checkIn: "2024-04-29", checkOut: "2024-05-03", locale: "de-DE" },
  { guest: "Claire Dubois", hotel: "Le Marais", checkIn: "2024-12-30", checkOut: "2025-01-02", locale: "fr-FR" },
  { guest: "Sato Yuki", hotel: "Kyoto Garden", checkIn: "2024-07-19", checkOut: "2024-07-21", locale: "ja-JP" },
  { guest: "Priya Nair", hotel: "Marine Drive", checkIn: "2024-10-02", checkOut: "2024-10-02", locale: "en-IN" },
];
const day = 86400000;
const rows = bookings.map((b) => {
  const from = Date.parse(b.checkIn + "T15:00:00Z"), to = Date.parse(b.checkOut + "T11:00:00Z");
  const dates = new Intl.DateTimeFormat(b.locale, { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });
  const long = new Intl.DateTimeFormat(b.locale, { dateStyle: "long", timeZone: "UTC" });
  const window = new Intl.DateTimeFormat(b.locale, { hour: "numeric", minute: "2-digit", timeZone: "UTC" });
  const nights = Math.round((Date.parse(b.checkOut) - Date.parse(b.checkIn)) / day);
  return {
    guest: b.guest,
    hotel: b.hotel,
    stay: dates.formatRange(from, to),
    stayLong: long.formatRange(from, to),
    checkInWindow: window.formatRange(from, from + 6 * 3600000),
    nights,
  };
});
for (const r of rows) console.log(`${r.guest} @ ${r.hotel}: ${r.stay} (${r.nights} night${r.nights === 1 ? "" : "s"}), check-in ${r.checkInWindow}`);
return rows;
