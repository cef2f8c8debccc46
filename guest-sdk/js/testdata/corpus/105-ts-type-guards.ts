type Ok = { kind: "ok"; value: number };
type Err = { kind: "err"; error: string };
type Result = Ok | Err;

function isOk(r: Result): r is Ok {
  return r.kind === "ok";
}
function parse(input: unknown): Result {
  if (typeof input === "number" && Number.isFinite(input)) return { kind: "ok", value: input };
  if (typeof input === "string" && input.trim() !== "" && !isNaN(Number(input))) return { kind: "ok", value: Number(input) };
  return { kind: "err", error: `not a number: ${JSON.stringify(input)}` };
}
const raw: unknown[] = await tools.echo({ values: [1, "2.5", "x", null, 7, ""] }).then((r: any) => r.values);
const results = raw.map(parse);
const sum = results.filter(isOk).reduce((s, r) => s + r.value, 0);
const errors = results.filter((r): r is Err => !isOk(r)).map((r) => r.error);
return { sum, errors };
