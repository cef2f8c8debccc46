class ValidationError extends Error {
  constructor(field, message) {
    super(message);
    this.name = "ValidationError";
    this.field = field;
  }
}
const users = await tools.users({ n: 8 });
for (const u of users) {
  if (u.age > 60) {
    throw new ValidationError("age", `user ${u.id} is too old for this plan (${u.age})`);
  }
}
return "all valid";
