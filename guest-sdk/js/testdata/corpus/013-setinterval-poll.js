let done = false, result = null;
tools.delay({ ms: 150, value: { job: "export", state: "finished" } }).then((r) => { done = true; result = r; });
let ticks = 0;
await new Promise((resolve) => {
  const id = setInterval(() => {
    ticks++;
    if (done) {
      clearInterval(id);
      resolve();
    }
  }, 20);
});
console.log(`job ${result.job} is ${result.state}`);
return { polled: ticks > 0, result };
