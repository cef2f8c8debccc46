const file = await tools.file({ name: "report.csv" });
const text = atob(file.base64);
const lines = text.trim().split("\n");
console.log(`${file.name} (${file.mime}): ${lines.length - 1} rows`);
const encoded = btoa("id,total\n1,9.99\n");
return { header: lines[0], first: lines[1], encoded, roundTrip: atob(encoded) === "id,total\n1,9.99\n" };
