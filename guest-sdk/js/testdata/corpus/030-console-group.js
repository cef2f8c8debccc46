const users = await tools.users({ n: 9 });
const byRole = {};
for (const u of users) (byRole[u.role] ||= []).push(u.name);
for (const [role, names] of Object.entries(byRole)) {
  console.group(`Role: ${role}`);
  for (const n of names) console.log(n);
  console.group("nested");
  console.info(`${names.length} total`);
  console.groupEnd();
  console.groupEnd();
}
console.log("end");
return Object.keys(byRole);
