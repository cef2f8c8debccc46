const csv = await tools.csv();
console.log("parsing", csv.length, "chars");
const data = JSON.parse(csv);
return data.length;
