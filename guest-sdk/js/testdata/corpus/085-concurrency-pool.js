async function pool(items, limit, worker) {
  const results = new Array(items.length);
  let next = 0, active = 0, maxActive = 0;
  async function run() {
    while (next < items.length) {
      const i = next++;
      active++;
      maxActive = Math.max(maxActive, active);
      results[i] = await worker(items[i]);
      active--;
    }
  }
  await Promise.all(Array.from({ length: limit }, run));
  return { results, maxActive };
}
const delays = [30, 10, 20, 5, 15, 25, 5, 10];
const { results, maxActive } = await pool(delays, 3, (ms) => tools.delay({ ms, value: ms * 2 }));
return { results, maxActive };
