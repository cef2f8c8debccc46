// The same chain under two profiles: each step reports "ok" or the reason
// airlock refused it.
const outcome = async (call) => {
  try {
    await call;
    return "ok";
  } catch (e) {
    return e.reason || String(e);
  }
};

return {
  announce_early: await outcome(tools.send_message({ to: "team", text: "1.2 is out" })),
  search: await outcome(tools.search_docs({ query: "release" })),
  read: await outcome(tools.kv_get({ key: "release/version" })),
  write_other_key: await outcome(tools.kv_set({ key: "main", value: "1.2" })),
  write: await outcome(tools.kv_set({ key: "release/version", value: "1.2" })),
  announce: await outcome(tools.send_message({ to: "team", text: "1.2 is out" })),
};
