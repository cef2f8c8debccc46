const users = await tools.users({ n: 2 });
const errors = [];
try {
  users[5].name.toUpperCase();
} catch (e) {
  errors.push({ name: e.name, message: e.message, first: e.stack.split("\n")[0], isType: e instanceof TypeError });
}
try {
  missingFunction();
} catch (e) {
  errors.push({ name: e.name, message: e.message, first: e.stack.split("\n")[0] });
}
try {
  null.length;
} catch (e) {
  errors.push({ name: e.name, message: e.message });
}
try {
  undefined.foo.bar;
} catch (e) {
  errors.push({ name: e.name, message: e.message });
}
try {
  const count = 1;
  count = 2;
} catch (e) {
  errors.push({ name: e.name, message: e.message });
}
return errors;
