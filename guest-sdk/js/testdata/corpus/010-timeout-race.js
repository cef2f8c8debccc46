function withTimeout(promise, ms) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms}ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const value = await withTimeout(tools.delay({ ms: 30, value: { report: "ready" } }), 2000);
console.log("got", value.report);
return value;
