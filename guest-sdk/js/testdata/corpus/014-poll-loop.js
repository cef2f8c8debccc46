const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let status = "running";
const job = tools.delay({ ms: 120, value: "complete" }).then((v) => { status = v; });
let polls = 0;
while (status === "running") {
  polls++;
  if (polls > 200) throw new Error("gave up polling");
  await sleep(25);
}
await job;
return { status, polled: polls > 0 };
