const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const start = Date.now();
await sleep(100);
const first = Date.now() - start;
await sleep(50);
const total = Date.now() - start;
console.log("slept");
return { atLeast100: first >= 95, atLeast150: total >= 145 };
