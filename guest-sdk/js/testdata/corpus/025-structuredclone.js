const users = await tools.users({ n: 3 });
const state = { users, fetched: new Date("2024-03-01T10:00:00Z"), seen: new Map([[1, true]]), tags: new Set(["a", "b"]) };
const copy = structuredClone(state);
copy.users[0].name = "Changed";
copy.seen.set(2, false);
return {
  originalName: state.users[0].name,
  copyName: copy.users[0].name,
  dateKept: copy.fetched instanceof Date && copy.fetched.getTime() === state.fetched.getTime(),
  mapSizes: [state.seen.size, copy.seen.size],
  tags: [...copy.tags],
};
