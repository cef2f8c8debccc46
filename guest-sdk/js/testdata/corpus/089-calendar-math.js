const orders = await tools.orders({ n: 8 });
const d = new Date(orders[7].createdAt);
const startOfWeek = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - ((d.getUTCDay() + 6) % 7)));
const endOfMonth = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0));
const addMonths = (date, n) => { const x = new Date(date); x.setUTCMonth(x.getUTCMonth() + n); return x; };
const quarter = Math.floor(d.getUTCMonth() / 3) + 1;
const yearStart = Date.UTC(d.getUTCFullYear(), 0, 1);
const dayOfYear = Math.floor((d - yearStart) / 86400000) + 1;
return {
  date: d.toISOString(),
  startOfWeek: startOfWeek.toISOString().slice(0, 10),
  endOfMonth: endOfMonth.getUTCDate(),
  plus1: addMonths(new Date("2024-01-31T00:00:00Z"), 1).toISOString().slice(0, 10),
  quarter, dayOfYear,
  local: [d.getHours(), d.getTimezoneOffset(), d.getDate()],
};
