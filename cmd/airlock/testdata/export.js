export default async function () {
  const r = await tools.search({q: "x"});
  return r;
}
