// TypeScript: the callee V8 names when a nested call's outer callee is not
// a function, and `new` of an absent constructor.
interface Row { id: number; when: string }
const summary: Record<string, number> = {};
const labels: string[] = [];
const fmt = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1 });
const rows: Row[] = await tools.users({ n: 2 }).then((us: { id: number; signup: string }[]) =>
  us.map((u) => ({ id: u.id, when: u.signup })),
);
const tryIt = (label: string, f: () => unknown): string => {
  try {
    return `${label}: ${JSON.stringify(f())}`;
  } catch (e) {
    const err = e as Error;
    const at = /script\.ts:(\d+):(\d+)/.exec(err.stack ?? "");
    return `${label}: ${err.name}: ${err.message}${at ? ` @${at[1]}:${at[2]}` : ""}`;
  }
};
const out: string[] = [];
out.push(tryIt("outer", () => (summary as any).push(fmt.format(rows.length))));
out.push(tryIt("inner", () => labels.concat((rows[0].when as any).toISOString())));
out.push(tryIt("ctor", () => new (Intl as any).DurationFormat("en")));
out.push(tryIt("ok", () => labels.concat(fmt.format(1.25))));
for (const line of out) console.log(line);
(summary as any).set(rows[0].id, fmt.format(rows[0].id));
