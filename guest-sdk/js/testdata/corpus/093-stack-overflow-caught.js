function depth(n) {
  return depth(n + 1) + 1;
}
let caught;
try {
  depth(0);
} catch (e) {
  caught = { name: e.name, message: e.message, isRange: e instanceof RangeError };
}
const users = await tools.users({ n: 1 });
return { caught, after: users.length };
