const users = await tools.users({ n: 3 });
const lines = users.map((u) => `- ${u.name} <${u.email}> lives in ${u.profile.city}`);
return lines.join("\n");
