const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function withRetry(fn, { retries = 4, base = 10 } = {}) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt > retries) throw err;
      const wait = base * 2 ** (attempt - 1);
      console.warn(`attempt ${attempt} failed (${err.message}); retrying in ${wait}ms`);
      await sleep(wait);
    }
  }
}

const t0 = Date.now();
const res = await withRetry(() => tools.flaky({ key: "inventory", failTimes: 3 }));
const elapsed = Date.now() - t0;
return { res, waitedEnough: elapsed >= 65 };
