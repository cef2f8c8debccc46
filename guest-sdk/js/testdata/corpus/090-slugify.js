const docs = await tools.search({ q: "" });
const slug = (s) => s.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
const out = docs.map((d) => ({ slug: slug(d.title), encoded: encodeURIComponent(d.title), length: d.title.normalize("NFC").length }));
return { out, decoded: decodeURIComponent("Caf%C3%A9%20%E2%9C%93"), uri: encodeURI("https://x.example/a b/ü?q=1&r=ä") };
