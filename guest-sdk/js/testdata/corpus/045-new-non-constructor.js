const users = await tools.users({ n: 2 });
const makeReport = (rows) => ({ rows });
const report = new makeReport(users);
return report.rows.length;
