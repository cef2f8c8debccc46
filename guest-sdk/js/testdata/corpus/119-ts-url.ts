interface Doc { title: string; url: string }
const docs: Doc[] = await tools.search({ q: "" });
const tracking: ReadonlySet<string> = new Set(["utm_source", "ref"]);
const clean = (raw: string): string => {
  const u = new URL(raw);
  for (const k of [...u.searchParams.keys()]) if (tracking.has(k)) u.searchParams.delete(k);
  u.hash = "";
  return u.toString();
};
const rel = new URL("../guides/intro?x=1", "https://docs.example.com/k8s/start/").href;
return { cleaned: docs.map((d) => clean(d.url)), rel, origin: new URL(docs[3].url).origin };
