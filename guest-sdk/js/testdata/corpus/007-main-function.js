async function main() {
  const docs = await tools.search({ q: "kubernetes" });
  console.info(`found ${docs.length} documents`);
  return docs.map((d) => d.title);
}

main()
