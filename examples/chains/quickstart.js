// Quickstart: look several things up at once, keep a note, and aggregate.
// Every `tools.x(...)` call below crosses the sandbox bridge into airlock's
// invoker, which checks budget, schema, risk and timeouts before it runs.
const topics = ["artifact", "approval", "limit"];

// Three searches in flight at the same time.
const results = await Promise.all(topics.map(q => tools.search_docs({ query: q, limit: 3 })));

const summary = topics.map((topic, i) => ({
  topic,
  hits: results[i].hits.length,
  best: results[i].hits[0] ? `${results[i].hits[0].doc}:${results[i].hits[0].line}` : null,
}));

// Remember the summary, then read it back.
await tools.kv_set({ key: "summary", value: summary });
const stored = await tools.kv_get({ key: "summary" });

console.log(`searched ${topics.length} topics, ${summary.reduce((n, s) => n + s.hits, 0)} hits`);
return { topics: stored.value, calls: topics.length + 2 };
