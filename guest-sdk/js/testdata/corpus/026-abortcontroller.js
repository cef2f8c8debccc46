const controller = new AbortController();
const { signal } = controller;
const log = [];
signal.addEventListener("abort", () => log.push(`aborted: ${signal.reason}`));
function wait(ms, signal) {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => resolve("finished"), ms);
    signal.addEventListener("abort", () => { clearTimeout(t); reject(new Error("cancelled")); });
  });
}
setTimeout(() => controller.abort("user cancelled"), 30);
let result;
try {
  result = await wait(1000, signal);
} catch (e) {
  result = e.message;
}
return { result, aborted: signal.aborted, log };
