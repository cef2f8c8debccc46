package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// consoleCase is one script and the console entries it must produce. The
// expected texts are Node 20's (TZ=UTC), copied from its output;
// TestConsoleMatchesNode checks them against node itself.
type consoleCase struct {
	name string
	src  string
	want []LogEntry
	// match makes each wanted Text a regular expression, for output that
	// differs between runs (timings) or engines (stack frames).
	match bool
}

var nodeConsoleCases = []consoleCase{
	{name: "primitives", src: `console.log("s", 1, -0, 1.5, NaN, -Infinity, 10n, true, null, undefined, Symbol("x"), Symbol())`, want: []LogEntry{
		{Level: LogInfo, Text: `s 1 -0 1.5 NaN -Infinity 10n true null undefined Symbol(x) Symbol()`},
	}},
	{name: "no args", src: `console.log()`, want: []LogEntry{
		{Level: LogInfo, Text: ``},
	}},
	{name: "strings nested", src: "console.log([\"a\", \"it's\", 'say \"hi\" it\\'s', \"a`b\", \"tab\\there\", \"nl\\nx\", \"\\x00\\x7f\", \"\\\\\"])", want: []LogEntry{
		{Level: LogInfo, Text: "[\n  'a',\n  \"it's\",\n  `say \"hi\" it's`,\n  'a`b',\n  'tab\\there',\n  'nl\\nx',\n  '\\x00\\x7F',\n  '\\\\'\n]"},
	}},
	{name: "lone surrogate", src: `console.log(["a\ud83d", "\ud83d\ude00", "\u00e9"])`, want: []LogEntry{
		{Level: LogInfo, Text: `[ 'a\ud83d', '😀', 'é' ]`},
	}},
	{name: "object keys", src: `console.log({ a: 1, "b-c": 2, "3": 3, _x: 4, [Symbol("s")]: 5, "": 6, "a b": 7 })`, want: []LogEntry{
		{Level: LogInfo, Text: `{ '3': 3, a: 1, 'b-c': 2, _x: 4, '': 6, 'a b': 7, [Symbol(s)]: 5 }`},
	}},
	{name: "empty values", src: `console.log({}, [], new Map(), new Set(), Object.create(null))`, want: []LogEntry{
		{Level: LogInfo, Text: `{} [] Map(0) {} Set(0) {} [Object: null prototype] {}`},
	}},
	{name: "nested depth", src: `console.log({ a: { b: { c: { d: 1 } } }, arr: [[[[1]]]], m: new Map([[1, new Map([[2, new Map([[3, new Map()]])]])]]) })`, want: []LogEntry{
		{Level: LogInfo, Text: `{
  a: { b: { c: [Object] } },
  arr: [ [ [Array] ] ],
  m: Map(1) { 1 => Map(1) { 2 => [Map] } }
}`},
	}},
	{name: "long object breaks", src: `console.log({ alpha: "aaaaaaaaaa", beta: "bbbbbbbbbb", gamma: "cccccccccc", delta: "dddddddddd", eps: 1 })`, want: []LogEntry{
		{Level: LogInfo, Text: `{
  alpha: 'aaaaaaaaaa',
  beta: 'bbbbbbbbbb',
  gamma: 'cccccccccc',
  delta: 'dddddddddd',
  eps: 1
}`},
	}},
	{name: "nested breaks", src: `console.log({ user: { id: 1, name: "Ada Lovelace", email: "ada@example.com", roles: ["admin", "editor"] }, ok: true })`, want: []LogEntry{
		{Level: LogInfo, Text: `{
  user: {
    id: 1,
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    roles: [ 'admin', 'editor' ]
  },
  ok: true
}`},
	}},
	{name: "compact depth rule", src: `console.log({ a: { b: { c: {} } } }); console.log({ a: [{ b: 1 }], c: { d: { e: 1 } } })`, want: []LogEntry{
		{Level: LogInfo, Text: `{ a: { b: { c: {} } } }`},
		{Level: LogInfo, Text: `{ a: [ { b: 1 } ], c: { d: { e: 1 } } }`},
	}},
	{name: "array grouping numbers", src: `console.log(Array.from({ length: 30 }, (_, i) => i * 7))`, want: []LogEntry{
		{Level: LogInfo, Text: `[
    0,   7,  14,  21,  28,  35,  42,  49,
   56,  63,  70,  77,  84,  91,  98, 105,
  112, 119, 126, 133, 140, 147, 154, 161,
  168, 175, 182, 189, 196, 203
]`},
	}},
	{name: "array grouping strings", src: `console.log(["apple", "banana", "cherry", "dates", "elderberry", "fig", "grape", "honeydew", "kiwi"])`, want: []LogEntry{
		{Level: LogInfo, Text: `[
  'apple',      'banana',
  'cherry',     'dates',
  'elderberry', 'fig',
  'grape',      'honeydew',
  'kiwi'
]`},
	}},
	{name: "array grouping mixed", src: `console.log([1, "two", 3, "four", 5, "six", 7, { a: 1 }])`, want: []LogEntry{
		{Level: LogInfo, Text: `[ 1, 'two', 3, 'four', 5, 'six', 7, { a: 1 } ]`},
	}},
	{name: "array of objects", src: `console.log([{ id: 1, name: "a" }, { id: 2, name: "b" }, { id: 3, name: "c" }])`, want: []LogEntry{
		{Level: LogInfo, Text: `[ { id: 1, name: 'a' }, { id: 2, name: 'b' }, { id: 3, name: 'c' } ]`},
	}},
	{name: "array holes", src: `console.log([1, , 3], [, , ], new Array(5), [1, 2, , , , 6, , ])`, want: []LogEntry{
		{Level: LogInfo, Text: `[ 1, <1 empty item>, 3 ] [ <2 empty items> ] [ <5 empty items> ] [ 1, 2, <3 empty items>, 6, <1 empty item> ]`},
	}},
	{name: "array extra keys", src: `const a = [1, 2]; a.foo = "bar"; console.log(a)`, want: []LogEntry{
		{Level: LogInfo, Text: `[ 1, 2, foo: 'bar' ]`},
	}},
	{name: "array over 100", src: `console.log(Array.from({ length: 250 }, (_, i) => i))`, want: []LogEntry{
		{Level: LogInfo, Text: "[\n   0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11,\n  12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,\n  24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,\n  36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,\n  48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59,\n  60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71,\n  72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83,\n  84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95,\n  96, 97, 98, 99,\n  ... 150 more items\n]"},
	}},
	{name: "huge array", src: `console.log(Array.from({ length: 1e6 }, (_, i) => i % 10))`, want: []LogEntry{
		{Level: LogInfo, Text: `[
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1,
  2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3,
  4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5,
  6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7,
  8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1,
  2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3,
  4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5,
  6, 7, 8, 9,
  ... 999900 more items
]`},
	}},
	{name: "long string", src: `console.log(["x".repeat(10050)])`, want: []LogEntry{
		{Level: LogInfo, Text: "[\n  '" + strings.Repeat("x", 10000) + "'... 50 more characters\n]"},
	}},
	{name: "long multiline string in object", src: `console.log({ text: "line one of the text here\nline two of the text here\nline three of the text here" })`, want: []LogEntry{
		{Level: LogInfo, Text: `{
  text: 'line one of the text here\n' +
    'line two of the text here\n' +
    'line three of the text here'
}`},
	}},
	{name: "circular", src: `const o = { name: "o" }; o.self = o; o.list = [o, { back: o }]; console.log(o)`, want: []LogEntry{
		{Level: LogInfo, Text: `<ref *1> {
  name: 'o',
  self: [Circular *1],
  list: [ [Circular *1], { back: [Circular *1] } ]
}`},
	}},
	{name: "two cycles", src: `const a = { n: "a" }, b = { n: "b", a }; a.b = b; const c = { n: "c" }; c.c = c; console.log([a, c])`, want: []LogEntry{
		{Level: LogInfo, Text: `[
  <ref *1> { n: 'a', b: { n: 'b', a: [Circular *1] } },
  <ref *2> { n: 'c', c: [Circular *2] }
]`},
	}},
	{name: "map and set", src: `console.log(new Map([["a", 1], [{ k: 1 }, [1, 2]]]), new Set([1, "two", [3]]))`, want: []LogEntry{
		{Level: LogInfo, Text: `Map(2) { 'a' => 1, { k: 1 } => [ 1, 2 ] } Set(3) { 1, 'two', [ 3 ] }`},
	}},
	{name: "map nested", src: `console.log({ m: new Map([["k", { deep: { deeper: 1 } }]]) })`, want: []LogEntry{
		{Level: LogInfo, Text: `{ m: Map(1) { 'k' => { deep: [Object] } } }`},
	}},
	{name: "date", src: `console.log(new Date(0), [new Date(86400000)], new Date(NaN))`, want: []LogEntry{
		{Level: LogInfo, Text: `1970-01-01T00:00:00.000Z [ 1970-01-02T00:00:00.000Z ] Invalid Date`},
	}},
	{name: "regexp", src: `console.log(/ab+c/gi, { r: /x/ })`, want: []LogEntry{
		{Level: LogInfo, Text: `/ab+c/gi { r: /x/ }`},
	}},
	{name: "errors no stack", src: `const e = new TypeError("bad thing"); e.stack = undefined; console.log(e); console.log({ e })`, want: []LogEntry{
		{Level: LogInfo, Text: `[TypeError: bad thing]`},
		{Level: LogInfo, Text: `{ e: [TypeError: bad thing] }`},
	}},
	{name: "error custom stack", src: `const e = new Error("boom"); e.stack = "Error: boom\n    at f (file.js:1:2)\n    at g (file.js:3:4)"; console.log(e); console.log({ nested: e })`, want: []LogEntry{
		{Level: LogInfo, Text: `Error: boom
    at f (file.js:1:2)
    at g (file.js:3:4)`},
		{Level: LogInfo, Text: `{
  nested: Error: boom
      at f (file.js:1:2)
      at g (file.js:3:4)
}`},
	}},
	{name: "error extra props", src: `const e = new Error("nope"); e.stack = "Error: nope\n    at f (file.js:1:2)"; e.code = "E_NOPE"; console.log(e); const f = new RangeError("r"); f.stack = ""; f.status = 404; console.log(f)`, want: []LogEntry{
		{Level: LogInfo, Text: `Error: nope
    at f (file.js:1:2) {
  code: 'E_NOPE'
}`},
		{Level: LogInfo, Text: `[RangeError: r] { status: 404 }`},
	}},
	{name: "error subclass", src: `class HttpError extends Error { constructor(m) { super(m); this.name = "HttpError"; this.stack = "HttpError: " + m + "\n    at x (y.js:1:1)"; } } console.log(new HttpError("down"))`, want: []LogEntry{
		{Level: LogInfo, Text: `HttpError: down
    at x (y.js:1:1)`},
	}},
	{name: "error cause", src: `const e = new Error("outer", { cause: "inner" }); e.stack = "Error: outer\n    at a (b.js:1:1)"; console.log(e)`, want: []LogEntry{
		{Level: LogInfo, Text: `Error: outer
    at a (b.js:1:1) {
  [cause]: 'inner'
}`},
	}},
	{name: "class instances", src: `class Foo { constructor() { this.x = 1; this.y = [2]; } } class Bar extends Foo {} class Empty {} console.log(new Foo(), new Bar(), new Empty())`, want: []LogEntry{
		{Level: LogInfo, Text: `Foo { x: 1, y: [ 2 ] } Bar { x: 1, y: [ 2 ] } Empty {}`},
	}},
	{name: "null prototype", src: `const o = Object.create(null); o.a = 1; console.log(o, Object.create(null))`, want: []LogEntry{
		{Level: LogInfo, Text: `[Object: null prototype] { a: 1 } [Object: null prototype] {}`},
	}},
	{name: "functions", src: `function named() {} const anon = (() => () => {})(); console.log(named, anon, async function af() {}, function* gen() {}, async function* ag() {}, Math.max)`, want: []LogEntry{
		{Level: LogInfo, Text: `[Function: named] [Function (anonymous)] [AsyncFunction: af] [GeneratorFunction: gen] [AsyncGeneratorFunction: ag] [Function: max]`},
	}},
	{name: "classes", src: `class A {} class B extends A {} console.log(A, B, class {})`, want: []LogEntry{
		{Level: LogInfo, Text: `[class A] [class B extends A] [class (anonymous)]`},
	}},
	{name: "function with props", src: `function f() {} f.x = 1; console.log(f)`, want: []LogEntry{
		{Level: LogInfo, Text: `[Function: f] { x: 1 }`},
	}},
	{name: "boxed primitives", src: `console.log(new Number(3), new String("ab"), new Boolean(false), Object(1n), Object(Symbol("q")))`, want: []LogEntry{
		{Level: LogInfo, Text: `[Number: 3] [String: 'ab'] [Boolean: false] [BigInt: 1n] [Symbol: Symbol(q)]`},
	}},
	{name: "typed arrays", src: `console.log(new Uint8Array([1, 2, 3]), new Float64Array(2), new BigInt64Array([5n]), new Uint8Array(0))`, want: []LogEntry{
		{Level: LogInfo, Text: `Uint8Array(3) [ 1, 2, 3 ] Float64Array(2) [ 0, 0 ] BigInt64Array(1) [ 5n ] Uint8Array(0) []`},
	}},
	{name: "array buffer", src: `console.log(new Uint8Array([1, 255, 16]).buffer, new DataView(new ArrayBuffer(1)))`, want: []LogEntry{
		{Level: LogInfo, Text: `ArrayBuffer { [Uint8Contents]: <01 ff 10>, byteLength: 3 } DataView {
  byteLength: 1,
  byteOffset: 0,
  buffer: ArrayBuffer { [Uint8Contents]: <00>, byteLength: 1 }
}`},
	}},
	{name: "getters", src: `console.log({ get a() { return 1; }, set b(v) {}, get c() { return 2; }, set c(v) {} })`, want: []LogEntry{
		{Level: LogInfo, Text: `{ a: [Getter], b: [Setter], c: [Getter/Setter] }`},
	}},
	{name: "throwing getter", src: `console.log({ get boom() { throw new Error("no"); }, ok: 1 })`, want: []LogEntry{
		{Level: LogInfo, Text: `{ boom: [Getter], ok: 1 }`},
	}},
	{name: "symbol keys", src: `console.log({ [Symbol.iterator]: 1, [Symbol("a b")]: "x" })`, want: []LogEntry{
		{Level: LogInfo, Text: `{ [Symbol(Symbol.iterator)]: 1, [Symbol(a b)]: 'x' }`},
	}},
	{name: "to string tag", src: `class T { get [Symbol.toStringTag]() { return "Tagged"; } } console.log(new T(), { [Symbol.toStringTag]: "own" })`, want: []LogEntry{
		{Level: LogInfo, Text: `T [Tagged] {} { [Symbol(Symbol.toStringTag)]: 'own' }`},
	}},
	{name: "weak collections", src: `console.log(new WeakMap(), new WeakSet())`, want: []LogEntry{
		{Level: LogInfo, Text: `WeakMap { <items unknown> } WeakSet { <items unknown> }`},
	}},
	{name: "promise pending", src: `console.log(new Promise(() => {}))`, want: []LogEntry{
		{Level: LogInfo, Text: `Promise { <pending> }`},
	}},
	{name: "promise states", src: `const r = Promise.reject(new Error("no")); r.catch(() => {}); console.log(Promise.resolve(1), { p: Promise.resolve([1, { a: "x" }]) }); console.log(Promise.reject(2).catch(() => {}), [r].length, Promise.resolve())`, want: []LogEntry{
		{Level: LogInfo, Text: `Promise { 1 } { p: Promise { [ 1, [Object] ] } }`},
		{Level: LogInfo, Text: `Promise { <pending> } 1 Promise { undefined }`},
	}},
	{name: "printf s", src: `console.log("%s|%s|%s|%s|%s|%s", "str", 42, -0, 5n, null, undefined); console.log("%s", { a: { b: 1 } }, "tail"); console.log("%s", [1, [2, [3]]]); class P { toString() { return "P!"; } } console.log("%s", new P())`, want: []LogEntry{
		{Level: LogInfo, Text: `str|42|-0|5n|null|undefined`},
		{Level: LogInfo, Text: `{ a: [Object] } tail`},
		{Level: LogInfo, Text: `[ 1, [Array] ]`},
		{Level: LogInfo, Text: `P!`},
	}},
	{name: "printf d i f", src: `console.log("%d %d %d %d", 42.9, "7", {}, 3n); console.log("%i %i %i", 42.9, "12px", -0.5); console.log("%f %f", "3.25abc", "x")`, want: []LogEntry{
		{Level: LogInfo, Text: `42.9 7 NaN 3n`},
		{Level: LogInfo, Text: `42 12 -0`},
		{Level: LogInfo, Text: `3.25 NaN`},
	}},
	{name: "printf j", src: `const c = { a: 1 }; c.c = c; console.log("%j %j %j", { a: [1] }, undefined, c)`, want: []LogEntry{
		{Level: LogInfo, Text: `{"a":[1]} undefined [Circular]`},
	}},
	{name: "printf o O", src: `console.log("%O", { a: { b: { c: { d: 1 } } } }); console.log("%o", { a: [1, 2] })`, want: []LogEntry{
		{Level: LogInfo, Text: `{ a: { b: { c: [Object] } } }`},
		{Level: LogInfo, Text: `{ a: [ 1, 2, [length]: 2 ] }`},
	}},
	{name: "printf c percent", src: `console.log("%c styled %% %x %", "color: red"); console.log("100%", 5); console.log("%s and %s", "one")`, want: []LogEntry{
		{Level: LogInfo, Text: ` styled % %x %`},
		{Level: LogInfo, Text: `100% 5`},
		{Level: LogInfo, Text: `one and %s`},
	}},
	{name: "printf extras", src: `console.log("%s:", "a", "b", { c: 1 }); console.log("no subst", { a: 1 }, "x")`, want: []LogEntry{
		{Level: LogInfo, Text: `a: b { c: 1 }`},
		{Level: LogInfo, Text: `no subst { a: 1 } x`},
	}},
	{name: "non string first", src: `console.log({ a: 1 }, "%s", "x"); console.log(5, "%d", 6)`, want: []LogEntry{
		{Level: LogInfo, Text: `{ a: 1 } %s x`},
		{Level: LogInfo, Text: `5 %d 6`},
	}},
	{name: "levels", src: `console.info("i"); console.debug("d"); console.warn("w"); console.error("e"); console.dirxml("x")`, want: []LogEntry{
		{Level: LogInfo, Text: `i`},
		{Level: LogDebug, Text: `d`},
		{Level: LogWarn, Text: `w`},
		{Level: LogError, Text: `e`},
		{Level: LogInfo, Text: `x`},
	}},
	{name: "dir", src: `console.dir({ a: { b: { c: { d: 1 } } } }); console.dir({ a: { b: { c: { d: 1 } } } }, { depth: 0 }); console.dir({ a: { b: { c: { d: 1 } } } }, { depth: null }); console.dir("str")`, want: []LogEntry{
		{Level: LogInfo, Text: `{ a: { b: { c: [Object] } } }`},
		{Level: LogInfo, Text: `{ a: [Object] }`},
		{Level: LogInfo, Text: `{
  a: { b: { c: { d: 1 } } }
}`},
		{Level: LogInfo, Text: `'str'`},
	}},
	{name: "group", src: `console.group("outer"); console.log("one"); console.group(); console.log({ a: 1, b: "x\ny" }); console.groupEnd(); console.warn("two"); console.groupEnd(); console.groupEnd(); console.log("out")`, want: []LogEntry{
		{Level: LogInfo, Text: `outer`},
		{Level: LogInfo, Text: `  one`},
		{Level: LogInfo, Text: `    { a: 1, b: 'x\ny' }`},
		{Level: LogWarn, Text: `  two`},
		{Level: LogInfo, Text: `out`},
	}},
	{name: "group collapsed", src: `console.groupCollapsed("c", 1); console.log([1, 2]); console.groupEnd(); console.log("done")`, want: []LogEntry{
		{Level: LogInfo, Text: `c 1`},
		{Level: LogInfo, Text: `  [ 1, 2 ]`},
		{Level: LogInfo, Text: `done`},
	}},
	{name: "count", src: `console.count(); console.count(); console.count("x"); console.countReset(); console.count(); console.countReset("nope")`, want: []LogEntry{
		{Level: LogInfo, Text: `default: 1`},
		{Level: LogInfo, Text: `default: 2`},
		{Level: LogInfo, Text: `x: 1`},
		{Level: LogInfo, Text: `default: 1`},
		{Level: LogWarn, Text: `Warning: Count for 'nope' does not exist`},
	}},
	{name: "assert", src: `console.assert(true, "no"); console.assert(false); console.assert(false, "msg %s", "sub"); console.assert(0, { a: 1 })`, want: []LogEntry{
		{Level: LogWarn, Text: `Assertion failed`},
		{Level: LogWarn, Text: `Assertion failed: msg sub`},
		{Level: LogWarn, Text: `Assertion failed: [object Object]`},
	}},
	{name: "table objects", src: `console.table([{ a: 1, b: "x" }, { a: 2, c: true }])`, want: []LogEntry{
		{Level: LogInfo, Text: `┌─────────┬───┬─────┬──────┐
│ (index) │ a │ b   │ c    │
├─────────┼───┼─────┼──────┤
│ 0       │ 1 │ 'x' │      │
│ 1       │ 2 │     │ true │
└─────────┴───┴─────┴──────┘`},
	}},
	{name: "table primitives", src: `console.table(["p", "q"]); console.table(5); console.table({ x: { v: 1 }, y: 2 })`, want: []LogEntry{
		{Level: LogInfo, Text: `┌─────────┬────────┐
│ (index) │ Values │
├─────────┼────────┤
│ 0       │ 'p'    │
│ 1       │ 'q'    │
└─────────┴────────┘`},
		{Level: LogInfo, Text: `5`},
		{Level: LogInfo, Text: `┌─────────┬───┬────────┐
│ (index) │ v │ Values │
├─────────┼───┼────────┤
│ x       │ 1 │        │
│ y       │   │ 2      │
└─────────┴───┴────────┘`},
	}},
	{name: "table columns", src: `console.table([{ a: 1, b: 2 }, { a: 3, b: 4 }], ["b"])`, want: []LogEntry{
		{Level: LogInfo, Text: `┌─────────┬───┐
│ (index) │ b │
├─────────┼───┤
│ 0       │ 2 │
│ 1       │ 4 │
└─────────┴───┘`},
	}},
	{name: "table map set", src: `console.table(new Map([["k", { v: 1 }]])); console.table(new Set(["s", 2]))`, want: []LogEntry{
		{Level: LogInfo, Text: `┌───────────────────┬─────┬──────────┐
│ (iteration index) │ Key │ Values   │
├───────────────────┼─────┼──────────┤
│ 0                 │ 'k' │ { v: 1 } │
└───────────────────┴─────┴──────────┘`},
		{Level: LogInfo, Text: `┌───────────────────┬────────┐
│ (iteration index) │ Values │
├───────────────────┼────────┤
│ 0                 │ 's'    │
│ 1                 │ 2      │
└───────────────────┴────────┘`},
	}},
	{name: "table nested values", src: `console.table([{ arr: [1, 2, 3, 4, 5], obj: { p: 1, q: 2, r: 3 }, o2: { p: 1 } }])`, want: []LogEntry{
		{Level: LogInfo, Text: `┌─────────┬───────────────────────────────┬──────────┬──────────┐
│ (index) │ arr                           │ obj      │ o2       │
├─────────┼───────────────────────────────┼──────────┼──────────┤
│ 0       │ [ 1, 2, 3, ... 2 more items ] │ [Object] │ { p: 1 } │
└─────────┴───────────────────────────────┴──────────┴──────────┘`},
	}},
	{name: "table wide chars", src: `console.table([{ name: "日本語", n: 1 }])`, want: []LogEntry{
		{Level: LogInfo, Text: `┌─────────┬──────────┬───┐
│ (index) │ name     │ n │
├─────────┼──────────┼───┤
│ 0       │ '日本語' │ 1 │
└─────────┴──────────┴───┘`},
	}},
	{name: "time missing", src: `console.timeEnd("nope"); console.timeLog("nope2")`, want: []LogEntry{
		{Level: LogWarn, Text: `Warning: No such label 'nope' for console.timeEnd()`},
		{Level: LogWarn, Text: `Warning: No such label 'nope2' for console.timeLog()`},
	}},
	{name: "time twice", src: `console.time("t"); console.time("t")`, want: []LogEntry{
		{Level: LogWarn, Text: `Warning: Label 't' already exists for console.time()`},
	}},
	{name: "deep nesting", src: `let o = {}; for (let i = 0; i < 10000; i++) o = { o }; console.log(o)`, want: []LogEntry{
		{Level: LogInfo, Text: `{ o: { o: { o: [Object] } } }`},
	}},
	{name: "deep arrays", src: `let a = []; for (let i = 0; i < 10000; i++) a = [a]; console.log(a)`, want: []LogEntry{
		{Level: LogInfo, Text: `[ [ [ [Array] ] ] ]`},
	}},
	{name: "map subclass", src: `class M extends Map {} console.log(new M([[1, 2]]), new (class S extends Set {})([1]))`, want: []LogEntry{
		{Level: LogInfo, Text: `M(1) [Map] { 1 => 2 } S(1) [Set] { 1 }`},
	}},
	{name: "array subclass", src: `class A extends Array {} console.log(A.from([1, 2]), new A())`, want: []LogEntry{
		{Level: LogInfo, Text: `A(2) [ 1, 2 ] A(0) []`},
	}},
	{name: "grouping objects", src: `console.log([[], [], {}, {}, [1], { a: 1 }, "x", 1])`, want: []LogEntry{
		{Level: LogInfo, Text: `[ [], [], {}, {}, [ 1 ], { a: 1 }, 'x', 1 ]`},
	}},
	{name: "grouping strings varied", src: `console.log(["a", "bb", "ccc", "dddd", "eeeee", "ffffff", "ggggggg", "hhhhhhhh", "iiiiiiiii", "j", "kk", "lll"])`, want: []LogEntry{
		{Level: LogInfo, Text: `[
  'a',         'bb',
  'ccc',       'dddd',
  'eeeee',     'ffffff',
  'ggggggg',   'hhhhhhhh',
  'iiiiiiiii', 'j',
  'kk',        'lll'
]`},
	}},
	{name: "many keys", src: `console.log({ aaaa: 1, bbbb: 2, cccc: 3, dddd: 4, eeee: 5, ffff: 6, gggg: 7, hhhh: 8, iiii: 9, jjjj: 10, kkkk: 11, llll: 12 })`, want: []LogEntry{
		{Level: LogInfo, Text: `{
  aaaa: 1,
  bbbb: 2,
  cccc: 3,
  dddd: 4,
  eeee: 5,
  ffff: 6,
  gggg: 7,
  hhhh: 8,
  iiii: 9,
  jjjj: 10,
  kkkk: 11,
  llll: 12
}`},
	}},
	{name: "percent s variants", src: `console.log("%s %s %s", Symbol("x"), () => 1, new Error("e").message); console.log("%s", new Map([[1, 2]])); console.log("%d %d", new Number(4), "abc")`, want: []LogEntry{
		{Level: LogInfo, Text: `Symbol(x) () => 1 e`},
		{Level: LogInfo, Text: `Map(1) { 1 => 2 }`},
		{Level: LogInfo, Text: `4 NaN`},
	}},
	{name: "percent o fn", src: `console.log("%o", function foo() {}); console.log("%o", [1, 2, 3])`, want: []LogEntry{
		{Level: LogInfo, Text: `<ref *1> [Function: foo] {
  [length]: 0,
  [name]: 'foo',
  [prototype]: { [constructor]: [Circular *1] }
}`},
		{Level: LogInfo, Text: `[ 1, 2, 3, [length]: 3 ]`},
	}},
	{name: "math json", src: `console.log(Math, JSON, globalThis.Reflect)`, want: []LogEntry{
		{Level: LogInfo, Text: `Object [Math] {} Object [JSON] {} Object [Reflect] {}`},
	}},
	{name: "nan map", src: `console.log(new Map([[NaN, -0]]), [NaN, -0, 0])`, want: []LogEntry{
		{Level: LogInfo, Text: `Map(1) { NaN => -0 } [ NaN, -0, 0 ]`},
	}},
	{name: "inherited", src: `console.log(Object.assign(Object.create({ inherited: 1 }), { own: 2 }))`, want: []LogEntry{
		{Level: LogInfo, Text: `{ own: 2 }`},
	}},
	{name: "generator object", src: `console.log((function* () {})())`, want: []LogEntry{
		{Level: LogInfo, Text: `Object [Generator] {}`},
	}},
	{name: "error no message", src: `const e = new Error(); e.stack = "Error\n    at x (y.js:1:1)"; console.log(e, [e])`, want: []LogEntry{
		{Level: LogInfo, Text: `Error
    at x (y.js:1:1) [
  Error
      at x (y.js:1:1)
]`},
	}},
	{name: "error renamed", src: `const e = new Error("m"); e.name = "Custom"; e.stack = "Error: m\n    at x (y.js:1:1)"; console.log(e)`, want: []LogEntry{
		{Level: LogInfo, Text: `Error: m
    at x (y.js:1:1) {
  name: 'Custom'
}`},
	}},
	{name: "error renamed no stack", src: `const e = new TypeError("m"); e.name = "Custom"; e.stack = undefined; console.log(e)`, want: []LogEntry{
		{Level: LogInfo, Text: `[Custom: m]`},
	}},
	{name: "aggregate", src: `const e = new AggregateError([new Error("a")], "many"); e.stack = "AggregateError: many\n    at x (y.js:1:1)"; e.errors[0].stack = "Error: a\n    at z (y.js:2:2)"; console.log(e)`, want: []LogEntry{
		{Level: LogInfo, Text: `AggregateError: many
    at x (y.js:1:1) {
  [errors]: [
    Error: a
        at z (y.js:2:2)
  ]
}`},
	}},
	{name: "error multiline message", src: `const e = new Error("line1\nline2"); e.stack = "Error: line1\nline2\n    at x (y.js:1:1)"; console.log(e); console.log({ e })`, want: []LogEntry{
		{Level: LogInfo, Text: `Error: line1
line2
    at x (y.js:1:1)`},
		{Level: LogInfo, Text: `{
  e: Error: line1
  line2
      at x (y.js:1:1)
}`},
	}},
	{name: "date props", src: `const d = new Date(0); d.x = 1; console.log(d)`, want: []LogEntry{
		{Level: LogInfo, Text: `1970-01-01T00:00:00.000Z { x: 1 }`},
	}},
	{name: "boxed string props", src: `const s = new String("ab"); s.x = 1; console.log(s)`, want: []LogEntry{
		{Level: LogInfo, Text: `[String: 'ab'] { x: 1 }`},
	}},
	{name: "long strings array", src: `console.log(["a".repeat(20) + "\n" + "b".repeat(70), "short"])`, want: []LogEntry{
		{Level: LogInfo, Text: `[
  'aaaaaaaaaaaaaaaaaaaa\n' +
    'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
  'short'
]`},
	}},
	{name: "top string long", src: `console.log("a\nb".repeat(50))`, want: []LogEntry{
		{Level: LogInfo, Text: `a
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
ba
b`},
	}},
	{name: "unicode grouping", src: `console.log(["日本", "中文字", "한국어", "e", "f", "g", "h"])`, want: []LogEntry{
		{Level: LogInfo, Text: `[ '日本', '中文字', '한국어', 'e', 'f', 'g', 'h' ]`},
	}},
	{name: "table arrays", src: `console.table([[1, 2], [3, 4, 5]])`, want: []LogEntry{
		{Level: LogInfo, Text: `┌─────────┬───┬───┬───┐
│ (index) │ 0 │ 1 │ 2 │
├─────────┼───┼───┼───┤
│ 0       │ 1 │ 2 │   │
│ 1       │ 3 │ 4 │ 5 │
└─────────┴───┴───┴───┘`},
	}},
	{name: "table index keys", src: `console.table({ first: { a: 1 }, second: { b: "two" } })`, want: []LogEntry{
		{Level: LogInfo, Text: `┌─────────┬───┬───────┐
│ (index) │ a │ b     │
├─────────┼───┼───────┤
│ first   │ 1 │       │
│ second  │   │ 'two' │
└─────────┴───┴───────┘`},
	}},
	{name: "table empty", src: `console.table([]); console.table({})`, want: []LogEntry{
		{Level: LogInfo, Text: `┌─────────┐
│ (index) │
├─────────┤
└─────────┘`},
		{Level: LogInfo, Text: `┌─────────┐
│ (index) │
├─────────┤
└─────────┘`},
	}},
	{name: "table primitive props", src: `console.table([1, { a: 2 }], ["a"])`, want: []LogEntry{
		{Level: LogInfo, Text: `┌─────────┬───┐
│ (index) │ a │
├─────────┼───┤
│ 0       │   │
│ 1       │ 2 │
└─────────┴───┘`},
	}},
	{name: "nested map in array", src: `console.log([new Map([[{ a: { b: 1 } }, new Set([[1, [2, [3]]]])]])])`, want: []LogEntry{
		{Level: LogInfo, Text: `[ Map(1) { { a: [Object] } => Set(1) { [Array] } } ]`},
	}},
	{name: "symbol description", src: `console.log(Symbol.iterator, Symbol.for("reg"), [Symbol("a'b")])`, want: []LogEntry{
		{Level: LogInfo, Text: `Symbol(Symbol.iterator) Symbol(reg) [ Symbol(a'b) ]`},
	}},
	{name: "key escaping", src: `console.log({ "it's": 1, "new\nline": 2, 'say "x"': 3, "\u00e9t\u00e9": 4, $dollar: 5, a1: 6, "1a": 7 })`, want: []LogEntry{
		{Level: LogInfo, Text: `{
  "it's": 1,
  'new\nline': 2,
  'say "x"': 3,
  'été': 4,
  '$dollar': 5,
  a1: 6,
  '1a': 7
}`},
	}},
	{name: "number keys", src: `console.log({ 10: "a", 2: "b", x: "c", "-1": "d", "01": "e" })`, want: []LogEntry{
		{Level: LogInfo, Text: `{ '2': 'b', '10': 'a', x: 'c', '-1': 'd', '01': 'e' }`},
	}},
	{name: "sparse huge", src: `const a = []; a[5] = 1; a[1e6] = 2; console.log(a); console.log(new Array(1e9))`, want: []LogEntry{
		{Level: LogInfo, Text: `[ <5 empty items>, 1, <999994 empty items>, 2 ]`},
		{Level: LogInfo, Text: `[ <1000000000 empty items> ]`},
	}},
	{name: "array long mixed", src: `console.log(Array.from({ length: 120 }, (_, i) => (i % 3 ? i : "s" + i)))`, want: []LogEntry{
		{Level: LogInfo, Text: "[\n  's0',  1,     2,     's3',  4,     5,     's6',  7,     8,     's9',\n  10,    11,    's12', 13,    14,    's15', 16,    17,    's18', 19,\n  20,    's21', 22,    23,    's24', 25,    26,    's27', 28,    29,\n  's30', 31,    32,    's33', 34,    35,    's36', 37,    38,    's39',\n  40,    41,    's42', 43,    44,    's45', 46,    47,    's48', 49,\n  50,    's51', 52,    53,    's54', 55,    56,    's57', 58,    59,\n  's60', 61,    62,    's63', 64,    65,    's66', 67,    68,    's69',\n  70,    71,    's72', 73,    74,    's75', 76,    77,    's78', 79,\n  80,    's81', 82,    83,    's84', 85,    86,    's87', 88,    89,\n  's90', 91,    92,    's93', 94,    95,    's96', 97,    98,    's99',\n  ... 20 more items\n]"},
	}},
	{name: "deep mixed", src: `console.log({ level1: { level2: { level3: { level4: "deep" } }, arr: [{ x: [1, 2, { y: 3 }] }] } })`, want: []LogEntry{
		{Level: LogInfo, Text: `{ level1: { level2: { level3: [Object] }, arr: [ [Object] ] } }`},
	}},
	{name: "object in group wide", src: `console.group("g"); console.log({ alpha: "aaaaaaaaaa", beta: "bbbbbbbbbb", gamma: "cccccccccc", delta: "ddddddd" }); console.groupEnd()`, want: []LogEntry{
		{Level: LogInfo, Text: `g`},
		{Level: LogInfo, Text: `  {
    alpha: 'aaaaaaaaaa',
    beta: 'bbbbbbbbbb',
    gamma: 'cccccccccc',
    delta: 'ddddddd'
  }`},
	}},
	{name: "dir options", src: `console.dir([1, [2, [3, [4, [5]]]]], { depth: 1 }); console.dir({ a: "x".repeat(30) }, { maxStringLength: 5 }); console.dir(Array.from({ length: 10 }, (_, i) => i), { maxArrayLength: 3 })`, want: []LogEntry{
		{Level: LogInfo, Text: `[ 1, [ 2, [Array] ] ]`},
		{Level: LogInfo, Text: `{ a: 'xxxxx'... 25 more characters }`},
		{Level: LogInfo, Text: `[ 0, 1, 2, ... 7 more items ]`},
	}},
	{name: "assert formats", src: `console.assert(false, "%d items", 5, "extra"); console.assert(false, 42)`, want: []LogEntry{
		{Level: LogWarn, Text: `Assertion failed: 5 items extra`},
		{Level: LogWarn, Text: `Assertion failed: 42`},
	}},
	{name: "count labels", src: `console.count(1); console.count("1"); console.count(undefined); console.count(null)`, want: []LogEntry{
		{Level: LogInfo, Text: `1: 1`},
		{Level: LogInfo, Text: `1: 2`},
		{Level: LogInfo, Text: `default: 1`},
		{Level: LogInfo, Text: `null: 1`},
	}},
	{name: "log undefined types", src: `console.log(undefined, null, typeof undefined); console.log("%s", undefined, "x")`, want: []LogEntry{
		{Level: LogInfo, Text: `undefined null undefined`},
		{Level: LogInfo, Text: `undefined x`},
	}},
	{name: "function names", src: `const o = { m() {}, get g() { return 1; }, ["comp" + "uted"]: function () {}, arrow: () => {} }; console.log(o, o.m, o.computed, o.arrow)`, want: []LogEntry{
		{Level: LogInfo, Text: `{
  m: [Function: m],
  g: [Getter],
  computed: [Function: computed],
  arrow: [Function: arrow]
} [Function: m] [Function: computed] [Function: arrow]`},
	}},
	{name: "bound function", src: `function f() {} console.log(f.bind(null), Function.prototype)`, want: []LogEntry{
		{Level: LogInfo, Text: `[Function: bound f] [Function (anonymous)] Object`},
	}},
	{name: "class static", src: `class K { static s = 1; } console.log(K, [K])`, want: []LogEntry{
		{Level: LogInfo, Text: `[class K] { s: 1 } [ [class K] { s: 1 } ]`},
	}},
	{name: "getter setter classes", src: `class G { get x() { return 1; } } console.log(new G())`, want: []LogEntry{
		{Level: LogInfo, Text: `G {}`},
	}},
	{name: "circular map", src: `const m = new Map(); m.set("self", m); console.log(m)`, want: []LogEntry{
		{Level: LogInfo, Text: `<ref *1> Map(1) { 'self' => [Circular *1] }`},
	}},
	{name: "circular in array", src: `const a = [1]; a.push(a); console.log(a)`, want: []LogEntry{
		{Level: LogInfo, Text: `<ref *1> [ 1, [Circular *1] ]`},
	}},
	{name: "empty object nested in arrays", src: `console.log([{}, [], new Map(), new Set()])`, want: []LogEntry{
		{Level: LogInfo, Text: `[ {}, [], Map(0) {}, Set(0) {} ]`},
	}},
	{name: "regex props", src: `const r = /x/g; r.extra = 1; console.log(r, new RegExp("a/b"))`, want: []LogEntry{
		{Level: LogInfo, Text: `/x/g { extra: 1 } /a\/b/`},
	}},
	{name: "wrapped numbers", src: `console.log([0.1 + 0.2, 1e21, 1e-7, 2 ** 53, -1.5e300, 123456789012345680000])`, want: []LogEntry{
		{Level: LogInfo, Text: `[
  0.30000000000000004,
  1e+21,
  1e-7,
  9007199254740992,
  -1.5e+300,
  123456789012345680000
]`},
	}},
	{name: "custom inspect", src: `const c = { [Symbol.for("nodejs.util.inspect.custom")](depth, opts) { return "Custom<" + depth + ">\nline2"; } }; console.log(c, { nested: c }); console.log({ [Symbol.for("nodejs.util.inspect.custom")]() { return { replaced: [1] }; } })`, want: []LogEntry{
		{Level: LogInfo, Text: `Custom<2>
line2 {
  nested: Custom<1>
  line2
}`},
		{Level: LogInfo, Text: `{ replaced: [ 1 ] }`},
	}},
	{name: "null proto map set", src: `const m = new Map([[1, 2]]); Object.setPrototypeOf(m, null); const s = new Set(["a"]); Object.setPrototypeOf(s, null); console.log(m, s)`, want: []LogEntry{
		{Level: LogInfo, Text: `[Map(1): null prototype] { 1 => 2 } [Set(1): null prototype] { 'a' }`},
	}},
	{name: "dir custom and hidden", src: `const c = { a: 1, [Symbol.for("nodejs.util.inspect.custom")]() { return "C"; } }; console.dir(c); console.dir(c, { customInspect: true }); console.dir([1, 2], { showHidden: true }); console.dir({ a: [1, 2, 3, 4] }, { maxArrayLength: 2, breakLength: 10 })`, want: []LogEntry{
		{Level: LogInfo, Text: `{
  a: 1,
  [Symbol(nodejs.util.inspect.custom)]: [Function: [nodejs.util.inspect.custom]]
}`},
		{Level: LogInfo, Text: `C`},
		{Level: LogInfo, Text: `[ 1, 2, [length]: 2 ]`},
		{Level: LogInfo, Text: `{
  a: [
    1,
    2,
    ... 2 more items
  ]
}`},
	}},
	{name: "holes long", src: `const h = Array(300).fill(1); delete h[0]; for (let i = 10; i < 250; i++) delete h[i]; console.log(h); const s = []; s[2] = 1; s[1e6] = 2; s.length = 2e6; console.log(s)`, want: []LogEntry{
		{Level: LogInfo, Text: "[\n  <1 empty item>, 1, 1,                 1,\n  1,              1, 1,                 1,\n  1,              1, <240 empty items>, 1,\n  1,              1, 1,                 1,\n  1,              1, 1,                 1,\n  1,              1, 1,                 1,\n  1,              1, 1,                 1,\n  1,              1, 1,                 1,\n  1,              1, 1,                 1,\n  1,              1, 1,                 1,\n  1,              1, 1,                 1,\n  1,              1, 1,                 1,\n  1,              1, 1,                 1,\n  1,              1, 1,                 1,\n  1,              1, 1,                 1,\n  1\n]"},
		{Level: LogInfo, Text: `[ <2 empty items>, 1, <999997 empty items>, 2, <999999 empty items> ]`},
	}},
	{name: "tool result", src: "const rows = Array.from({ length: 8 }, (_, i) => ({ id: i + 1, title: \"Issue number \" + (i + 1), labels: [\"bug\", \"p\" + (i % 3)], closed: i % 2 === 0, meta: { created: \"2024-01-0\" + (i + 1), author: { login: \"user\" + i } } })); console.log(rows); console.log(\"first:\", rows[0]); console.log(`count=${rows.length}`, { total: rows.length })", want: []LogEntry{
		{Level: LogInfo, Text: "[\n  {\n    id: 1,\n    title: 'Issue number 1',\n    labels: [ 'bug', 'p0' ],\n    closed: true,\n    meta: { created: '2024-01-01', author: [Object] }\n  },\n  {\n    id: 2,\n    title: 'Issue number 2',\n    labels: [ 'bug', 'p1' ],\n    closed: false,\n    meta: { created: '2024-01-02', author: [Object] }\n  },\n  {\n    id: 3,\n    title: 'Issue number 3',\n    labels: [ 'bug', 'p2' ],\n    closed: true,\n    meta: { created: '2024-01-03', author: [Object] }\n  },\n  {\n    id: 4,\n    title: 'Issue number 4',\n    labels: [ 'bug', 'p0' ],\n    closed: false,\n    meta: { created: '2024-01-04', author: [Object] }\n  },\n  {\n    id: 5,\n    title: 'Issue number 5',\n    labels: [ 'bug', 'p1' ],\n    closed: true,\n    meta: { created: '2024-01-05', author: [Object] }\n  },\n  {\n    id: 6,\n    title: 'Issue number 6',\n    labels: [ 'bug', 'p2' ],\n    closed: false,\n    meta: { created: '2024-01-06', author: [Object] }\n  },\n  {\n    id: 7,\n    title: 'Issue number 7',\n    labels: [ 'bug', 'p0' ],\n    closed: true,\n    meta: { created: '2024-01-07', author: [Object] }\n  },\n  {\n    id: 8,\n    title: 'Issue number 8',\n    labels: [ 'bug', 'p1' ],\n    closed: false,\n    meta: { created: '2024-01-08', author: [Object] }\n  }\n]"},
		{Level: LogInfo, Text: `first: {
  id: 1,
  title: 'Issue number 1',
  labels: [ 'bug', 'p0' ],
  closed: true,
  meta: { created: '2024-01-01', author: { login: 'user0' } }
}`},
		{Level: LogInfo, Text: `count=8 { total: 8 }`},
	}},
	{name: "summary obj", src: `console.log({ total: 1234.5, currency: "USD", byRegion: { north: 100, south: 200.25, east: 0, west: -3 }, top: ["a", "b", "c"], when: new Date(Date.UTC(2024, 0, 15, 10, 30)) })`, want: []LogEntry{
		{Level: LogInfo, Text: `{
  total: 1234.5,
  currency: 'USD',
  byRegion: { north: 100, south: 200.25, east: 0, west: -3 },
  top: [ 'a', 'b', 'c' ],
  when: 2024-01-15T10:30:00.000Z
}`},
	}},
	{name: "error in catch", src: `const err = new Error("request failed: 503"); err.stack = "Error: request failed: 503\n    at fetchIt (x.js:3:9)"; err.status = 503; console.error("Failed:", err); console.error("Failed: %s", err.message)`, want: []LogEntry{
		{Level: LogError, Text: `Failed: Error: request failed: 503
    at fetchIt (x.js:3:9) {
  status: 503
}`},
		{Level: LogError, Text: `Failed: request failed: 503`},
	}},
	{name: "json stringify", src: `console.log(JSON.stringify({ a: [1, 2], b: { c: "d" } }, null, 2))`, want: []LogEntry{
		{Level: LogInfo, Text: `{
  "a": [
    1,
    2
  ],
  "b": {
    "c": "d"
  }
}`},
	}},
	{name: "nested arrays numbers", src: `console.log([[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[1, [2, [3, [4]]]]])`, want: []LogEntry{
		{Level: LogInfo, Text: `[ [ 1, 2, 3 ], [ 4, 5, 6 ], [ 7, 8, 9 ] ] [ [ 1, [ 2, [Array] ] ] ]`},
	}},
	{name: "long text in obj", src: `console.log({ body: "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua." })`, want: []LogEntry{
		{Level: LogInfo, Text: `{
  body: 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.'
}`},
	}},
	{name: "many short strings", src: `console.log(Array.from({ length: 26 }, (_, i) => String.fromCharCode(97 + i)))`, want: []LogEntry{
		{Level: LogInfo, Text: `[
  'a', 'b', 'c', 'd', 'e', 'f',
  'g', 'h', 'i', 'j', 'k', 'l',
  'm', 'n', 'o', 'p', 'q', 'r',
  's', 't', 'u', 'v', 'w', 'x',
  'y', 'z'
]`},
	}},
	{name: "floats", src: `console.log([0.1, 0.25, 1 / 3, 100, 1e100, 5e-324, 12345.678])`, want: []LogEntry{
		{Level: LogInfo, Text: `[ 0.1, 0.25, 0.3333333333333333, 100, 1e+100, 5e-324, 12345.678 ]`},
	}},
	{name: "map of arrays", src: `console.log(new Map([["open", [1, 2, 3]], ["closed", []]]), Object.fromEntries([["x", 1]]))`, want: []LogEntry{
		{Level: LogInfo, Text: `Map(2) { 'open' => [ 1, 2, 3 ], 'closed' => [] } { x: 1 }`},
	}},
	{name: "undefined props", src: `console.log({ a: undefined, b: null, c: NaN, d: "" })`, want: []LogEntry{
		{Level: LogInfo, Text: `{ a: undefined, b: null, c: NaN, d: '' }`},
	}},
	{name: "set of objects", src: `console.log(new Set([{ id: 1 }, { id: 2 }]))`, want: []LogEntry{
		{Level: LogInfo, Text: `Set(2) { { id: 1 }, { id: 2 } }`},
	}},
	{name: "grouped objects", src: `const groups = { bug: [{ id: 1 }, { id: 2 }], feature: [{ id: 3 }] }; console.log(groups); console.table(Object.entries(groups).map(([k, v]) => ({ label: k, count: v.length })))`, want: []LogEntry{
		{Level: LogInfo, Text: `{ bug: [ { id: 1 }, { id: 2 } ], feature: [ { id: 3 } ] }`},
		{Level: LogInfo, Text: `┌─────────┬───────────┬───────┐
│ (index) │ label     │ count │
├─────────┼───────────┼───────┤
│ 0       │ 'bug'     │ 2     │
│ 1       │ 'feature' │ 1     │
└─────────┴───────────┴───────┘`},
	}},
	{name: "table numbers", src: `console.table([{ name: "alice", score: 93.5 }, { name: "bob", score: 8 }, { name: "carol", score: 100 }])`, want: []LogEntry{
		{Level: LogInfo, Text: `┌─────────┬─────────┬───────┐
│ (index) │ name    │ score │
├─────────┼─────────┼───────┤
│ 0       │ 'alice' │ 93.5  │
│ 1       │ 'bob'   │ 8     │
│ 2       │ 'carol' │ 100   │
└─────────┴─────────┴───────┘`},
	}},
	{name: "table with undefined", src: `console.table([{ a: undefined, b: null }, { a: [1, 2], b: { c: 1 } }])`, want: []LogEntry{
		{Level: LogInfo, Text: `┌─────────┬───────────┬──────────┐
│ (index) │ a         │ b        │
├─────────┼───────────┼──────────┤
│ 0       │ undefined │ null     │
│ 1       │ [ 1, 2 ]  │ { c: 1 } │
└─────────┴───────────┴──────────┘`},
	}},
	{name: "big map and set", src: `const m = new Map(); const s = new Set(); for (let i = 0; i < 100000; i++) { m.set(i, i); s.add("s" + i) } console.log(m); console.log(s)`, match: true, want: []LogEntry{
		{Level: LogInfo, Text: `^Map\(100000\) \{\n  0 => 0,\n(  \d+ => \d+,\n){99}  \.\.\. 99900 more items\n\}$`},
		{Level: LogInfo, Text: `^Set\(100000\) \{\n  's0',\n(  's\d+',\n){99}  \.\.\. 99900 more items\n\}$`},
	}},
	{name: "timers", match: true, src: `console.time(); console.timeLog(undefined, "x", { a: 1 }); console.timeEnd(); console.timeEnd(); console.time("t"); console.timeLog("t"); console.timeEnd("t")`, want: []LogEntry{
		{Level: LogInfo, Text: `^default: \d+(\.\d{1,3})?ms x \{ a: 1 \}$`},
		{Level: LogInfo, Text: `^default: \d+(\.\d{1,3})?ms$`},
		{Level: LogWarn, Text: `^Warning: No such label 'default' for console\.timeEnd\(\)$`},
		{Level: LogInfo, Text: `^t: \d+(\.\d{1,3})?ms$`},
		{Level: LogInfo, Text: `^t: \d+(\.\d{1,3})?ms$`},
	}},
	{name: "trace", match: true, src: `console.trace("here %d", 1); console.trace(); console.group(); console.trace("in")`, want: []LogEntry{
		{Level: LogError, Text: `^Trace: here 1(\n    at [^\n]+)+$`},
		{Level: LogError, Text: `^Trace(\n    at [^\n]+)+$`},
		{Level: LogError, Text: `^  Trace: in(\n      at [^\n]+)+$`},
	}},
}

// guestConsoleCases are cases where airlock differs from Node on purpose
// (guest-sdk/js/README.md, "console"), or whose Node output depends on V8.
var guestConsoleCases = []consoleCase{
	// Node prints all 10000 levels; the guest stops at depth 12, as
	// util.inspect(o, {depth: 12}) does (its stack allows about 200 nested
	// calls).
	{name: "dir depth null is capped", src: `let o = {}; for (let i = 0; i < 10000; i++) o = { o }; console.dir(o, { depth: null }); console.dir(o, { depth: Infinity })`, want: []LogEntry{
		{Level: LogInfo, Text: depth12},
		{Level: LogInfo, Text: depth12},
	}},
	// Node shows a Proxy's target without running its traps; the guest
	// cannot tell a Proxy and runs them, but depth and cycles still bound it.
	{name: "proxy that returns itself", src: `const p = new Proxy({}, { ownKeys: () => ["a", "b"], getOwnPropertyDescriptor: () => ({ value: p, enumerable: true, configurable: true }), get: () => p }); console.log(p)`, want: []LogEntry{
		{Level: LogInfo, Text: "<ref *1> { a: [Circular *1], b: [Circular *1] }"},
	}},
	{name: "proxy that nests forever", src: `const make = () => new Proxy({}, { ownKeys: () => ["a"], getOwnPropertyDescriptor: () => ({ value: make(), enumerable: true, configurable: true }) }); console.log(make())`, want: []LogEntry{
		{Level: LogInfo, Text: "{ a: { a: { a: [Object] } } }"},
	}},
	// Node would throw from console.log here.
	{name: "proxy with throwing traps", src: `const bad = new Proxy({}, { ownKeys() { throw new Error("keys trap"); } }); const half = new Proxy({ a: 1 }, { getOwnPropertyDescriptor() { throw new Error("desc trap"); } }); console.log([bad, half, 2])`, want: []LogEntry{
		{Level: LogInfo, Text: "[ <Inspection threw (keys trap)>, <Inspection threw (desc trap)>, 2 ]"},
	}},
	{name: "throwing toStringTag and stack getters", src: `class C { get [Symbol.toStringTag]() { throw new Error("tag"); } } const e = new Error("m"); Object.defineProperty(e, "stack", { get() { throw new Error("stack"); } }); console.log(new C(), e)`, want: []LogEntry{
		{Level: LogInfo, Text: "C {} [Error: m]"},
	}},
	// Node recurses until its stack overflows; the guest ignores hooks
	// past 12 nested ones.
	{name: "custom inspect returning hooked values forever", src: `const k = Symbol.for("nodejs.util.inspect.custom"); const make = () => ({ [k]: () => make() }); console.log(make())`, want: []LogEntry{
		{Level: LogInfo, Text: "{\n  [Symbol(nodejs.util.inspect.custom)]: [Function: [nodejs.util.inspect.custom]]\n}"},
	}},
	// Node lists the extra string keys of arrays of any length; the guest
	// only up to 1000 items (symbol keys always). The text is Node's
	// without a.extra. Holes are found without listing the keys.
	{name: "long arrays", src: `const a = Array.from({ length: 1e6 }, (_, i) => i); a.extra = 1; a[Symbol("s")] = 2; const h = Array(1e6).fill(1); for (let i = 0; i < 999990; i++) delete h[i]; console.log(a, h)`, want: []LogEntry{
		{Level: LogInfo, Text: "[\n   0,                     1,  2,\n   3,                     4,  5,\n   6,                     7,  8,\n   9,                    10, 11,\n  12,                    13, 14,\n  15,                    16, 17,\n  18,                    19, 20,\n  21,                    22, 23,\n  24,                    25, 26,\n  27,                    28, 29,\n  30,                    31, 32,\n  33,                    34, 35,\n  36,                    37, 38,\n  39,                    40, 41,\n  42,                    43, 44,\n  45,                    46, 47,\n  48,                    49, 50,\n  51,                    52, 53,\n  54,                    55, 56,\n  57,                    58, 59,\n  60,                    61, 62,\n  63,                    64, 65,\n  66,                    67, 68,\n  69,                    70, 71,\n  72,                    73, 74,\n  75,                    76, 77,\n  78,                    79, 80,\n  81,                    82, 83,\n  84,                    85, 86,\n  87,                    88, 89,\n  90,                    91, 92,\n  93,                    94, 95,\n  96,                    97, 98,\n  99, ... 999900 more items,\n  [Symbol(s)]: 2\n] [ <999990 empty items>, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 ]"},
	}},
	// The engine's own stack: "Name: message" is put before its frames.
	{name: "engine error stack", src: "function thrower() { throw new TypeError('bad') }\ntry { thrower() } catch (e) { console.error(e); console.log({ e }) }", match: true, want: []LogEntry{
		{Level: LogError, Text: `^TypeError: bad\n    at thrower \(script\.js:1:\d+\)(\n    at [^\n]+)*$`},
		{Level: LogInfo, Text: `^\{\n  e: TypeError: bad\n      at thrower \(script\.js:1:\d+\)(\n      at [^\n]+)*\n\}$`},
	}},
}

// depth12 is Node's util.inspect(o, {depth: 12}) of o = {o: {o: …}}.
const depth12 = "{\n  o: {\n    o: {\n      o: {\n        o: {\n          o: {\n            o: {\n              o: {\n                o: {\n                  o: {\n                    o: { o: { o: { o: [Object] } } }\n                  }\n                }\n              }\n            }\n          }\n        }\n      }\n    }\n  }\n}"

// TestConsoleBudget: one inspection stops expanding after 4 Mi characters
// (Node's budget is 2^27): further keys and items are cut. This value
// would print 30 MB in Node.
func TestConsoleBudget(t *testing.T) {
	res, err := run(t, `const o = {}; for (let i = 0; i < 1000; i++) o["k" + i] = "v".repeat(10000); console.log([o, o, o]); return 1`, nil, Limits{MaxLogBytes: 16 << 20})
	require.NoError(t, err)
	require.Len(t, res.Logs, 1)
	var want strings.Builder
	want.WriteString("[\n  {\n")
	for i := 0; i < 420; i++ {
		fmt.Fprintf(&want, "    k%d: '%s',\n", i, strings.Repeat("v", 10000))
	}
	want.WriteString("    ... 580 more properties\n  },\n  ... 2 more items\n]")
	require.Equal(t, want.String(), res.Logs[0].Text)
}

// runConsole runs src under airlock and returns its log entries.
func runConsole(t *testing.T, src string) []LogEntry {
	t.Helper()
	res, err := run(t, src, nil, Limits{})
	require.NoError(t, err)
	require.False(t, res.LogsTruncated)
	return res.Logs
}

func checkConsole(t *testing.T, c consoleCase, got []LogEntry) {
	t.Helper()
	if !c.match {
		require.Equal(t, c.want, got)
		return
	}
	require.Len(t, got, len(c.want), "%q", got)
	for i, w := range c.want {
		require.Equal(t, w.Level, got[i].Level, "entry %d: %q", i, got[i].Text)
		require.Regexp(t, regexp.MustCompile(w.Text), got[i].Text, "entry %d", i)
	}
}

func TestConsoleOutput(t *testing.T) {
	for _, c := range append(append([]consoleCase{}, nodeConsoleCases...), guestConsoleCases...) {
		t.Run(c.name, func(t *testing.T) {
			checkConsole(t, c, runConsole(t, c.src))
		})
	}
}

// nodeConsoleHarness runs the cases (a JSON array of sources on stdin), each
// with a fresh Node Console writing to two recording streams, and prints
// their entries as JSON [[[stream, text], …], …]. Warnings, which Node
// emits asynchronously to the process's stderr as "(node:PID) Warning: …",
// are recorded in place as "Warning: …" on stderr, as the guest logs them.
const nodeConsoleHarness = `
const { Console } = require("console");
const { Writable } = require("stream");
const srcs = JSON.parse(require("fs").readFileSync(0, "utf8"));
(async () => {
  const all = [];
  for (const src of srcs) {
    const out = [];
    const sink = (name) => new Writable({ write(chunk, _enc, cb) { out.push([name, chunk.toString().replace(/\n$/, "")]); cb(); } });
    const c = new Console({ stdout: sink("stdout"), stderr: sink("stderr"), colorMode: false });
    process.emitWarning = (msg) => out.push(["stderr", "Warning: " + msg]);
    await new Function("console", '"use strict"; return (async () => {\n' + src + '\n})()')(c);
    all.push(out);
  }
  process.stdout.write(JSON.stringify(all));
})().catch((e) => { console.error(e); process.exit(1); });
`

// TestConsoleMatchesNode checks the expected texts of nodeConsoleCases
// against node: the same text, on the stream the level stands for (stdout
// for debug and info, stderr for warn and error). Under CI=true a missing
// node fails.
func TestConsoleMatchesNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is required under CI=true: install Node 20")
		}
		t.Skip("node not found")
	}
	harness := filepath.Join(t.TempDir(), "harness.js")
	require.NoError(t, os.WriteFile(harness, []byte(nodeConsoleHarness), 0o600))
	srcs := make([]string, len(nodeConsoleCases))
	for i, c := range nodeConsoleCases {
		srcs[i] = c.src
	}
	in, err := json.Marshal(srcs)
	require.NoError(t, err)
	cmd := exec.CommandContext(context.Background(), node, harness)
	cmd.Env = append(os.Environ(), "TZ=UTC")
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	require.NoError(t, err)
	var results [][][2]string
	require.NoError(t, json.Unmarshal(out, &results))
	require.Len(t, results, len(nodeConsoleCases))
	for i, c := range nodeConsoleCases {
		t.Run(c.name, func(t *testing.T) {
			got := make([]LogEntry, len(results[i]))
			for j, e := range results[i] {
				got[j] = LogEntry{Level: LogInfo, Text: e[1]}
				if e[0] == "stderr" {
					got[j].Level = LogWarn
				}
			}
			want := make([]LogEntry, len(c.want))
			for j, w := range c.want {
				want[j] = w
				switch w.Level {
				case LogDebug:
					want[j].Level = LogInfo
				case LogError:
					want[j].Level = LogWarn
				}
			}
			checkConsole(t, consoleCase{want: want, match: c.match}, got)
		})
	}
}

// TestConsoleShow: an uncaught non-Error value is rendered as console.log
// would print it.
func TestConsoleShow(t *testing.T) {
	_, err := run(t, `throw { code: 42, list: [1, "a"] }`, nil, Limits{})
	require.ErrorContains(t, err, `uncaught non-Error value: { code: 42, list: [ 1, 'a' ] }`)
}

// TestConsoleLogLimits: console output still counts against the run's log
// limits.
func TestConsoleLogLimits(t *testing.T) {
	res, err := run(t, `console.log(Array.from({ length: 100 }, () => "x".repeat(100))); return 1`, nil, Limits{MaxLogBytes: 1000})
	require.ErrorIs(t, err, &ExitError{Kind: LimitExceeded, Limit: LimitLogs})
	require.True(t, res.LogsTruncated)
}
