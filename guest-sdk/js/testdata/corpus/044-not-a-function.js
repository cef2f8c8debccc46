const file = await tools.file({ name: "report.csv" });
const csv = file;
const lines = csv.trim().split("\n");
return lines.length;
