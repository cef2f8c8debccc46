const users = await tools.users({ n: 2 });
for (const u of users) console.log(`checked ${u.name}`);
