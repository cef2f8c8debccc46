class Progress extends EventTarget {
  update(done, total) {
    this.dispatchEvent(new CustomEvent("progress", { detail: { done, total } }));
  }
}
const p = new Progress();
const seen = [];
p.addEventListener("progress", (e) => seen.push(`${e.detail.done}/${e.detail.total}`));
const once = [];
p.addEventListener("progress", (e) => once.push(e.type), { once: true });
const cities = ["Berlin", "Paris", "Tokyo"];
let done = 0;
await Promise.all(cities.map(async (city) => {
  await tools.weather({ city });
  p.update(++done, cities.length);
}));
const ev = new Event("custom");
return { seen, once, evType: ev.type, isEvent: ev instanceof Event };
