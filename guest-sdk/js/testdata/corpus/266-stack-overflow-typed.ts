// A recursion too deep in TypeScript: the frames are the TypeScript's lines.
interface Category {
  name: string;
  parent?: Category;
}

function pathOf(cat: Category, seen: number): string {
  const depth: number = seen + 1;
  return pathOf(cat, depth) + "/" + cat.name;
}

function isEven(n: number): boolean {
  return n === 0 ? true : isOdd(n - 1);
}
function isOdd(n: number): boolean {
  return n === 0 ? false : isEven(n - 1);
}

const out: Record<string, unknown> = {};
try {
  pathOf({ name: "root" }, 0);
} catch (e) {
  const err = e as Error;
  console.log(err.stack);
  out.path = err.stack?.split("\n").length;
}
try {
  isEven(1e9);
} catch (e) {
  // Which of the two overflows depends on the engine's stack: only the
  // frames' names and lines are compared.
  const lines = (e as Error).stack!.split("\n").slice(1);
  out.mutual = [...new Set(lines.map((l) => l.replace(/^ +at (\w+) \(script\.ts:(\d+):\d+\)$/, "$1:$2")))].sort();
}
console.log(JSON.stringify(out));
