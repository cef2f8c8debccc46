type Point = readonly [x: number, y: number];
type Range = [start: Date, end: Date];
const pts: Point[] = (await tools.users({ n: 6 })).map((u: { age: number; score: number }): Point => [u.age, u.score]);
const centroid: Point = [pts.reduce((s, p) => s + p[0], 0) / pts.length, pts.reduce((s, p) => s + p[1], 0) / pts.length];
const [cx, cy] = centroid;
const range: Range = [new Date("2024-01-01T00:00:00Z"), new Date("2024-12-31T00:00:00Z")];
const days = (range[1].getTime() - range[0].getTime()) / 864e5;
return { cx: +cx.toFixed(3), cy: +cy.toFixed(3), days };
