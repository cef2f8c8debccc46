class TimeoutError extends Error {
  constructor(public readonly ms: number) {
    super(`operation timed out after ${ms} ms`);
    this.name = "TimeoutError";
  }
}
function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new TimeoutError(ms)), ms);
    p.then((v) => { clearTimeout(t); resolve(v); }, (e) => { clearTimeout(t); reject(e); });
  });
}
const fast = await withTimeout(tools.delay({ ms: 20, value: "fast" }) as Promise<string>, 1000);
let slow: string;
try {
  slow = await withTimeout(tools.delay({ ms: 400, value: "slow" }) as Promise<string>, 60);
} catch (e) {
  slow = e instanceof TimeoutError ? `${e.name}: ${e.message} (${e.ms})` : "other";
}
return { fast, slow };
