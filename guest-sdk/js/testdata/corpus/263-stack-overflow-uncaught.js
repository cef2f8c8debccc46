// An uncaught recursion too deep fails the run at its first frame: the
// start of the function that could not be called.
const tree = { id: 1, children: [] };
function depthOf(node, level) {
  const here = level + 1;
  return depthOf(node, here);
}
console.log("root", tree.id);
return depthOf(tree, 0);
