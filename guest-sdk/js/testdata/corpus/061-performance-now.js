const t0 = performance.now();
performance.mark("start");
const items = await tools.delay({ ms: 40, value: [1, 2, 3] });
performance.mark("end");
const m = performance.measure("fetch", "start", "end");
const elapsed = performance.now() - t0;
return { items, measured: m.duration >= 35, elapsed: elapsed >= 35, name: m.name, monotonic: performance.now() >= t0 };
