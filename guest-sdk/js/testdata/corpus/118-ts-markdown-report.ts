interface User { id: number; name: string; country: string; score: number; signup: string }
const users: User[] = await tools.users({ n: 12 });
const flags: Partial<Record<string, string>> = { DE: "🇩🇪", FR: "🇫🇷", JP: "🇯🇵", US: "🇺🇸" };
const pad = (s: string | number, n: number): string => String(s).padEnd(n);
const header = `| ${pad("Name", 18)} | Country | Score | Since |`;
const rows = users
  .sort((a: User, b: User) => b.score - a.score)
  .map((u: User) => `| ${pad(u.name, 18)} | ${pad(flags[u.country] ?? u.country, 7)} | ${u.score.toFixed(1).padStart(5)} | ${u.signup.slice(0, 7)} |`);
const md = [header, "|---|---|--:|---|", ...rows].join("\n");
console.log(md);
return { lines: rows.length + 2 };
