const users = await tools.users({ n: 50 });
const scores = users.map((u) => u.score).sort((a, b) => a - b);
const mean = scores.reduce((s, x) => s + x, 0) / scores.length;
const median = scores.length % 2 ? scores[(scores.length - 1) / 2] : (scores[scores.length / 2 - 1] + scores[scores.length / 2]) / 2;
const sd = Math.sqrt(scores.reduce((s, x) => s + (x - mean) ** 2, 0) / scores.length);
const p90 = scores[Math.ceil(0.9 * scores.length) - 1];
console.log(`mean=${mean.toFixed(3)} median=${median} sd=${sd.toFixed(3)} p90=${p90}`);
return { mean, median, sd, p90, min: Math.min(...scores), max: Math.max(...scores) };
