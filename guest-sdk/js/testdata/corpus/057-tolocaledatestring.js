const orders = await tools.orders({ n: 3 });
const d = new Date(orders[2].createdAt);
return {
  iso: d.toISOString(),
  plain: d.toLocaleDateString(),
  us: d.toLocaleDateString("en-US", { weekday: "long", year: "numeric", month: "long", day: "numeric" }),
  gb: d.toLocaleDateString("en-GB"),
  de: d.toLocaleDateString("de-DE", { day: "2-digit", month: "2-digit", year: "numeric" }),
  fr: d.toLocaleDateString("fr-FR", { month: "long" }),
  ja: d.toLocaleDateString("ja-JP"),
  ko: d.toLocaleDateString("ko-KR"),
  time: d.toLocaleTimeString("en-US"),
  time24: d.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit" }),
  full: d.toLocaleString(),
  str: d.toString(),
  utc: d.toUTCString(),
};
