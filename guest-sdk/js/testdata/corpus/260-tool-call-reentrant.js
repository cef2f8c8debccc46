// Tool calls made while another call's arguments are being encoded (a
// getter, toJSON, a Proxy trap), the microtasks around them, and where
// errors raised while encoding point.
const order = [];
let inner, fromTrap;
const viaGetter = tools.echo({
  get a() {
    order.push("getter");
    inner = tools.echo({ from: "getter" });
    return 1;
  },
});
order.push("after getter call");
Promise.resolve().then(() => order.push("microtask 1"));
const viaToJSON = tools.echo({
  toJSON() {
    order.push("toJSON");
    return { b: 2, nested: tools.echo === tools.echo };
  },
});
queueMicrotask(() => order.push("microtask 2"));
const args = new Proxy({ c: 3 }, {
  ownKeys(t) {
    order.push("ownKeys");
    fromTrap = tools.echo({ from: "trap" });
    return Reflect.ownKeys(t);
  },
});
const viaTrap = tools.echo(args);
order.push("sync end");
const results = await Promise.all([viaGetter, inner, viaToJSON, viaTrap, fromTrap]);
console.log(JSON.stringify(order));
console.log(JSON.stringify(results));

function encodeFails() {
  return tools.echo({
    toJSON() {
      throw new RangeError("cannot encode");
    },
  });
}
try {
  await encodeFails();
} catch (e) {
  // V8 names the method's frame "Object.toJSON", the engine "toJSON".
  console.log(e.stack.split("\n").filter((l) => !l.includes("toJSON")).join("\n"));
}
try {
  await tools.echo({ n: 1n });
} catch (e) {
  console.log(e.name, e.message.length > 0);
}
function failing() {
  return tools.fail({ reason: "nope", message: "failed on purpose" });
}
try {
  await failing();
} catch (e) {
  console.log(e.stack);
}
const seen = [];
const p = tools.echo({ k: 1 }).then(() => seen.push("call"));
Promise.resolve().then(() => seen.push("r1")).then(() => seen.push("r2"));
await p;
console.log(JSON.stringify(seen));
return results.length;
