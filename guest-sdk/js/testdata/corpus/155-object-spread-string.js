// Object spread of a string copies its characters as indexed properties in
// V8 ({..."ab"} is {0: "a", 1: "b"}); QuickJS-NG copies nothing from a
// primitive string, which the load-time rewrite fixes
// (sandbox/internal/quickjs/spread.go). A String object, Object.assign and
// array spread work as in Node.
const word = "héllo";
const results = {
  objectOfWrapper: { ...new String("ab") },
  assign: Object.assign({}, "ab"),
  arraySpread: [..."a😀b"],
  entries: Object.entries(Object("xy")),
  number: { ...42 },
  nullish: { ...null, ...undefined },
  merged: { a: 1, ...{ b: 2 } },
};
console.log(results);
const chars = { ...word };
console.log(Object.keys(chars).length, chars);
return { chars, literal: { ..."ab" } };
