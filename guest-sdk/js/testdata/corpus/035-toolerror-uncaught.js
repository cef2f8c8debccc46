const users = await tools.users({ n: 2 });
console.log("transferring for", users.length, "users");
for (const u of users) {
  await tools.fail({ status: "denied", reason: "approval_denied", message: `transfer for ${u.id} was denied` });
}
return "unreachable";
