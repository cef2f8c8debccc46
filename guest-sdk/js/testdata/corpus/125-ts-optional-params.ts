interface Query { q?: string; limit?: number }
async function find({ q = "", limit = 3 }: Query = {}): Promise<string[]> {
  const docs: { title: string }[] = await tools.search({ q, limit });
  return docs.map((d) => d.title);
}
const [a, b, c] = await Promise.all([find(), find({ q: "postgres" }), find({ limit: 1 })]);
return { a, b, c };
