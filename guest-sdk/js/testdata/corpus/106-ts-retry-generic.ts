const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function retry<T>(fn: () => Promise<T>, attempts = 5, baseMs = 5): Promise<T> {
  let lastError: unknown;
  for (let i = 0; i < attempts; i++) {
    try {
      return await fn();
    } catch (err: unknown) {
      lastError = err;
      const msg = err instanceof Error ? err.message : String(err);
      console.warn(`retry ${i + 1}/${attempts}: ${msg}`);
      await sleep(baseMs * 2 ** i);
    }
  }
  throw lastError;
}

interface FlakyResult { key: string; attempts: number }
const a = await retry<FlakyResult>(() => tools.flaky({ key: "a", failTimes: 2 }));
const b = await retry<FlakyResult>(() => tools.flaky({ key: "b", failTimes: 0 }));
return [a, b];
