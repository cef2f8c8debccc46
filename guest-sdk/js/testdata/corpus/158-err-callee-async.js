// "is not a function" inside async functions, class methods and callbacks:
// the callee V8 names, with nested calls in the arguments.
const cache = new Map();
const stats = { hits: 0 };
const names = ["b", "a"];
class Store {
  constructor() {
    this.rows = [];
  }
  add(row) {
    this.rows.push(row);
    return this;
  }
  dump() {
    return stats.count(this.rows.map((r) => r.id).join(","));
  }
}
const catcher = (label) => (e) => {
  const at = /script\.js:(\d+):(\d+)/.exec(e.stack);
  console.log(`${label}: ${e.message}${at ? ` @${at[1]}:${at[2]}` : ""}`);
};
async function load(n) {
  const users = await tools.users({ n });
  cache.set("users", users);
  return names.sort().join(cache.get("users").length);
}
async function broken() {
  const users = await tools.users({ n: 2 });
  return cache.put("users", users.map((u) => u.name));
}
console.log(await load(2));
await broken().catch(catcher("map put"));
try { new Store().add({ id: 1 }).add({ id: 2 }).dump(); } catch (e) { catcher("method")(e); }
await Promise.resolve(1).then((v) => stats.track(String(v))).catch(catcher("then"));
try { [1, 2].forEach((n) => names.add(n.toFixed(1))); } catch (e) { catcher("forEach")(e); }
try { JSON.stringify(stats, stats.replacer(String(1))); } catch (e) { catcher("global outer, local inner")(e); }
try { Math.max(stats.values()); } catch (e) { catcher("inner of global")(e); }
try { names.sort().reverse().at(0).toUpperCase().trimAll(); } catch (e) { catcher("long chain")(e); }
const store = new Store();
store.add({ id: 3 });
return store.rows.length + stats.sum(store.rows.map((r) => r.id));
