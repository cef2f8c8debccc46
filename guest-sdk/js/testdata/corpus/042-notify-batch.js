const users = await tools.users({ n: 15 });
const inactive = users.filter((u) => !u.active);
const receipts = [];
for (const u of inactive) {
  const r = await tools.notify({ to: u.email, text: `Hi ${u.name.split(" ")[0]}, we miss you!` });
  receipts.push(r.id);
}
console.log(`notified ${receipts.length} of ${users.length} users`);
return receipts;
