// A class whose constructor builds another of itself without end: the
// frames of a construction are `new Name` in V8.
class Layer {
  constructor(depth) {
    this.depth = depth;
    this.inner = new Layer(depth + 1);
  }
}
try {
  new Layer(0);
} catch (e) {
  const lines = e.stack.split("\n");
  console.log(lines[0]);
  console.log(lines[1]);
  console.log(lines[2]);
  return { frames: lines.length - 1 };
}
