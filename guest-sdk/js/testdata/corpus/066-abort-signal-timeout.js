async function fetchWithSignal(signal) {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    tools.delay({ ms: 500, value: "slow" }).then(resolve, reject);
  });
}
let outcome;
try {
  outcome = await fetchWithSignal(AbortSignal.timeout(50));
} catch (e) {
  outcome = { name: e.name, message: e.message };
}
const any = AbortSignal.any([new AbortController().signal, AbortSignal.abort("now")]);
return { outcome, anyAborted: any.aborted, anyReason: any.reason };
