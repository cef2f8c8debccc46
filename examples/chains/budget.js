// A chain that runs into its call budget. Every call counts, even refused
// ones; once the budget is spent each further call is refused with
// reason "budget_exhausted" and the script decides what to do.
let done = 0;
for (let i = 0; i < 100; i++) {
  try {
    await tools.kv_set({ key: `k${i}`, value: i });
    done++;
  } catch (e) {
    if (e.reason === "budget_exhausted") {
      return { done, stopped_at: i, reason: e.reason };
    }
    throw e;
  }
}
return { done };
