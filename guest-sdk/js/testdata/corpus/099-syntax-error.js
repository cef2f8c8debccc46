const users = await tools.users({ n: 3 });
const names = users.map((u) => u.name;
return names;
