const docs = await tools.search({ q: "" });
const parsed = docs.map((d) => {
  const u = new URL(d.url);
  return { host: u.hostname, port: u.port, path: u.pathname, params: Object.fromEntries(u.searchParams), hash: u.hash, secure: u.protocol === "https:" };
});
const hosts = [...new Set(parsed.map((p) => p.host))].sort();
console.log("hosts:", hosts.join(", "));
return { parsed, hosts };
