async function loadUser(id) {
  try {
    return await tools.fail({ reason: "not_found", message: `no user ${id}` });
  } catch (err) {
    throw new Error(`could not load user ${id}`, { cause: err });
  }
}
try {
  await loadUser(42);
} catch (e) {
  return { message: e.message, cause: e.cause.message, causeReason: e.cause.reason, causeIsToolError: e.cause instanceof ToolError };
}
