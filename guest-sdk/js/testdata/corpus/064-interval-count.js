let count = 0;
const start = Date.now();
await new Promise((resolve) => {
  const id = setInterval(() => {
    count++;
    if (count === 5) {
      clearInterval(id);
      resolve();
    }
  }, 20);
});
const elapsed = Date.now() - start;
console.log(`ticked ${count} times`);
return { count, tookAtLeast100: elapsed >= 95 };
