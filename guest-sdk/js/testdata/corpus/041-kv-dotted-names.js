const key = "report:2024-03";
await tools["kv.set"]({ key, value: { rows: 12, status: "draft" } });
const before = await tools["kv.get"]({ key });
await tools["kv.set"]({ key, value: { ...before, status: "final" } });
const after = await tools["kv.get"]({ key });
const missing = await tools["kv.get"]({ key: "nope" });
return { before, after, missing };
