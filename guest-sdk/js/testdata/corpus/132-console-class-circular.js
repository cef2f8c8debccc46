class Node {
  constructor(name) { this.name = name; this.children = []; this.parent = null; }
  add(child) { child.parent = this; this.children.push(child); return child; }
}
const users = await tools.users({ n: 3 });
const root = new Node("root");
for (const u of users) root.add(new Node(u.name));
console.log(root.children[0].name, root.children.length);
console.log(root);
console.log(new Node("leaf"));
console.log([new Error("inside array").message], { err: new RangeError("in object").name });
console.log(Symbol("tag"), [undefined, null], function namedFn() {}, () => {}, class Foo {});
console.log({ date: new Date("2024-03-01T00:00:00Z") }, new Date("2024-03-01T00:00:00Z"));
console.log([1.5, -0, NaN, Infinity], "a\nb", ["a\nb"], { "key with space": 1, valid_id: 2 });
console.log(new Array(5), [1, , 3], Object.create(null), new Uint8Array([1, 2, 3]));
console.log("x".repeat(3), { long: "y".repeat(30), arr: Array.from({ length: 120 }, (_, i) => i) });
return "ok";
