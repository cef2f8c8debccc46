// A recursion whose function calls a built-in and makes an object before
// it calls itself: V8 may run out of stack in either, and places the
// first frame there.
function pathOf(cat, seen) {
  const label = cat.name.toUpperCase();
  return pathOf({ name: label, parent: cat }, seen + 1) + "/" + label;
}
try {
  pathOf({ name: "root" }, 0);
} catch (e) {
  console.log(e.stack);
  return e.stack.split("\n").length;
}
