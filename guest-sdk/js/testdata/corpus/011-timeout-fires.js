const timeout = (ms) => new Promise((_, reject) => setTimeout(() => reject(new Error("timeout")), ms));
const started = Date.now();
let outcome;
try {
  outcome = await Promise.race([tools.delay({ ms: 600, value: "slow result" }), timeout(80)]);
} catch (e) {
  outcome = `failed: ${e.message}`;
}
const elapsed = Date.now() - started;
console.log(outcome);
return { outcome, waited: elapsed >= 75, notTooLong: elapsed < 600 };
