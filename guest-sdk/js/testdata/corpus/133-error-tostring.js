const results = [];
try {
  await tools.weather({ city: "Gondor" });
} catch (err) {
  results.push(String(err), `${err}`, err.toString(), Object.prototype.toString.call(err));
  results.push(JSON.stringify(err), JSON.stringify({ message: err.message, reason: err.reason }));
  results.push(Object.keys(err).sort().join(","));
}
const e = new TypeError("bad input");
results.push(e.toString(), e instanceof Error, Error.prototype.name, typeof e.stack);
const plain = new Error("");
results.push(String(plain));
return results;
