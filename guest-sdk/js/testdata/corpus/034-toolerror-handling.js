const attempts = [
  { status: "denied", reason: "approval_denied", message: "the user declined the transfer" },
  { status: "error", reason: "rate_limited", message: "too many requests" },
  { reason: "internal" },
];
const seen = [];
for (const a of attempts) {
  try {
    await tools.fail(a);
  } catch (e) {
    if (e instanceof ToolError) {
      seen.push({ name: e.name, tool: e.tool, status: e.status, reason: e.reason, message: e.message, isError: e instanceof Error });
    } else {
      throw e;
    }
  }
}
try {
  await tools.doesNotExist({});
} catch (e) {
  seen.push({ tool: e.tool, reason: e.reason, message: e.message });
}
console.log(seen.map((s) => s.reason).join(","));
return seen;
