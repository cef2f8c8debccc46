// "X is not a function": the callee V8 names, in nested and enclosing calls.
const report = {};
const nf = new Intl.NumberFormat("en-US");
const rows = [{ date: "2024-01-02", n: 3 }];
const res = { status: 200, body: "{}" };
const attempt = (label, f) => {
  try {
    return label + ": " + JSON.stringify(f());
  } catch (e) {
    const at = /script\.js:(\d+):(\d+)/.exec(e.stack);
    return label + ": " + e.name + ": " + e.message + (at ? " @" + at[1] + ":" + at[2] : "");
  }
};
const out = [];
out.push(attempt("outer", () => report.push(nf.format(1234.5))));
out.push(attempt("outer2", () => report.push(String(1), nf.format(2))));
out.push(attempt("inner", () => out.concat(rows[0].date.toISOString())));
out.push(attempt("inner-last", () => [].concat(1, res.json())));
out.push(attempt("no-args", () => report.push()));
out.push(attempt("literal-arg", () => report.push("a")));
out.push(attempt("number-arg", () => report.push(42)));
out.push(attempt("ctor", () => new Intl.DurationFormat("en", { style: "long" })));
out.push(attempt("ctor-noargs", () => new Intl.DurationFormat()));
out.push(attempt("ctor-bare", () => new Intl.DurationFormat));
out.push(attempt("ctor-local", () => new report.Thing(1)));
out.push(attempt("global-outer", () => JSON.parse(res.text())));
out.push(attempt("global-inner", () => Math.max(...[1, 2].map(String), res.count())));
out.push(attempt("computed", () => report["push"](nf.format(3))));
out.push(attempt("after-binop", () => report.push(nf.format(3) + "!")));
out.push(attempt("optional", () => report.push?.call(nf.format(3))));
out.push(attempt("chained", () => rows.map((r) => r.n).sum()));
out.push(attempt("callback", () => rows.forEach((r) => report.add(r.n))));
out.push(attempt("template", () => `${report.name()}`));
out.push(attempt("method-on-number", () => String(rows[0].n.padStart(3))));
out.push(attempt("await-like", () => Promise.resolve(report.then())));
out.push(attempt("reserved-name", () => report.catch(nf.format(5))));
out.push(attempt("reserved-inner", () => out.concat(res.delete("k"))));
out.push(attempt("new-in-args", () => report.push(new Date(0))));
out.push(attempt("new-then-method", () => new Date(0).format()));
out.push(attempt("const-array-ok", () => rows.concat(report.keys())));
out.push(attempt("string-method", () => "abc".trim().toLowerCase().title()));
out.push(attempt("multi-line", () =>
  report.push(
    nf.format(7),
  )));
for (const line of out) console.log(line);
