const users = await tools.users({ n: 3 });
const admins = users.filter((u) => u.role === "admin");
console.log(`found ${admins.length} admins`);
const first = admins[0];
return first.email.toLowerCase();
