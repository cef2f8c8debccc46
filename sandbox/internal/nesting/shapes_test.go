package nesting

import (
	"fmt"
	"strings"
)

// shape is a construct that nests; gen(n) nests it n times.
type shape struct {
	name string
	ts   bool // TypeScript only
	gen  func(n int) string
}

func rep(s string, n int) string { return strings.Repeat(s, n) }

// shapes are the nesting attack shapes: each makes esbuild recurse (or, for
// the TypeScript ones, go super-linear) once or more per level.
var shapes = []shape{
	{name: "brackets", gen: func(n int) string { return "x=" + rep("[", n) + rep("]", n) }},
	{name: "parens", gen: func(n int) string { return "x=" + rep("(", n) + "1" + rep(")", n) }},
	{name: "blocks", gen: func(n int) string { return rep("{", n) + rep("}", n) }},
	{name: "objects", gen: func(n int) string { return "x=" + rep("{a:", n) + "1" + rep("}", n) }},
	{name: "not", gen: func(n int) string { return "x=" + rep("!", n) + "x" }},
	{name: "minus", gen: func(n int) string { return "x=" + rep("- ", n) + "x" }},
	{name: "typeof", gen: func(n int) string { return "x=" + rep("typeof ", n) + "x" }},
	{name: "void", gen: func(n int) string { return "x=" + rep("void ", n) + "x" }},
	{name: "await", gen: func(n int) string { return "x=" + rep("await ", n) + "x" }},
	{name: "new", gen: func(n int) string { return "x=" + rep("new ", n) + "x" }},
	{name: "arrows", gen: func(n int) string { return "x=" + rep("a=>", n) + "a" }},
	{name: "arrows no params", gen: func(n int) string { return "x=" + rep("()=>", n) + "0" }},
	{name: "arrows paren params", gen: func(n int) string { return "x=" + rep("(a)=>", n) + "0" }},
	{name: "async arrows", gen: func(n int) string { return "x=" + rep("async()=>", n) + "0" }},
	{name: "arrow blocks", gen: func(n int) string { return "x=" + rep("()=>{return ", n) + "0" + rep("}", n) }},
	{name: "functions", gen: func(n int) string { return rep("function f(){", n) + rep("}", n) }},
	{name: "conditional chain", gen: func(n int) string { return "x=" + rep("a?b:", n) + "c" }},
	{name: "conditional nest", gen: func(n int) string { return "x=" + rep("a?", n) + "b" + rep(":c", n) }},
	{name: "if", gen: func(n int) string { return rep("if(x)", n) + ";" }},
	{name: "else if", gen: func(n int) string { return "if(x);" + rep("else if(x);", n) }},
	{name: "else if blocks", gen: func(n int) string { return "if(x){}" + rep("else if(x){}", n) }},
	{name: "while", gen: func(n int) string { return rep("while(x)", n) + ";" }},
	{name: "for", gen: func(n int) string { return rep("for(;;)", n) + ";" }},
	{name: "do", gen: func(n int) string { return rep("do ", n) + "x;" + rep("while(x);", n) }},
	{name: "labels", gen: func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "l%d:", i)
		}
		return b.String() + ";"
	}},
	{name: "assignments", gen: func(n int) string { return rep("a=", n) + "0" }},
	{name: "exponent", gen: func(n int) string { return "x=" + rep("a**", n) + "a" }},
	{name: "members", gen: func(n int) string { return "x=a" + rep(".b", n) }},
	{name: "members on lines", gen: func(n int) string { return "x=a" + rep("\n.b", n) }},
	{name: "calls", gen: func(n int) string { return "x=a" + rep("()", n) }},
	{name: "index", gen: func(n int) string { return "x=a" + rep("[0]", n) }},
	{name: "optional chain", gen: func(n int) string { return "x=a" + rep("?.b", n) }},
	{name: "tagged templates", gen: func(n int) string { return "x=a" + rep("``", n) }},
	{name: "templates", gen: func(n int) string { return "x=" + rep("`${", n) + "1" + rep("}`", n) }},
	{name: "array destructuring", gen: func(n int) string { return "let " + rep("[", n) + "a" + rep("]", n) + "=0" }},
	{name: "object destructuring", gen: func(n int) string { return "let " + rep("{a:", n) + "a" + rep("}", n) + "=0" }},
	{name: "spread", gen: func(n int) string { return "x=" + rep("[...", n) + "a" + rep("]", n) }},
	{name: "class extends", gen: func(n int) string { return "x=" + rep("class extends ", n) + "a{}" }},
	{name: "yield", gen: func(n int) string { return "function*g(){x=" + rep("yield ", n) + "x}" }},
	{name: "regex groups", gen: func(n int) string { return "x=/" + rep("(", n) + "a" + rep(")", n) + "/" }},
	{name: "default params", gen: func(n int) string { return "x=" + rep("(a=", n) + "0" + rep(")", n) + "=>0" }},
	{name: "ts generics", ts: true, gen: func(n int) string { return "let x: " + rep("A<", n) + "B" + rep(">", n) }},
	{name: "ts generic lists", ts: true, gen: func(n int) string { return "let x: " + rep("A<B,", n) + "B" + rep(">", n) }},
	{name: "ts tuple types", ts: true, gen: func(n int) string { return "let x: " + rep("[", n) + "B" + rep("]", n) }},
	{name: "ts function types", ts: true, gen: func(n int) string { return "let x: " + rep("()=>", n) + "B" }},
	{name: "ts keyof", ts: true, gen: func(n int) string { return "let x: " + rep("keyof ", n) + "B" }},
	{name: "ts type assertions", ts: true, gen: func(n int) string { return "x = " + rep("<any>", n) + "a" }},
	{name: "ts typed arrows", ts: true, gen: func(n int) string { return "x=" + rep("(a:any):any=>", n) + "0" }},
	{name: "ts generic arrows", ts: true, gen: func(n int) string { return "x=" + rep("<T,>(a:T)=>", n) + "0" }},
	{name: "ts conditional types", ts: true, gen: func(n int) string { return "type X = " + rep("A extends B ? C : ", n) + "D" }},
	{name: "ts namespaces", ts: true, gen: func(n int) string { return rep("namespace A{", n) + rep("}", n) }},
}

// ordinary returns about size bytes of ordinary code nesting about 20 deep.
func ordinary(size int) string {
	const unit = `function handler%d(input, options) {
	const result = [];
	for (const item of input.items) {
		if (item.kind === "a" && options.strict) {
			result.push({ id: item.id, value: item.value * 2, tags: [...item.tags, "x"] });
		} else if (item.kind === "b") {
			const sub = item.children.map((c) => ({ name: c.name, total: c.values.reduce((a, b) => a + b, 0) }));
			result.push(...sub.filter((s) => s.total > 10 ? s.name !== "" : false));
		} else {
			try { result.push(JSON.parse(item.raw)) } catch (e) { console.log("bad item", item.id, e.message) }
		}
	}
	return { [options.key ?? "data"]: result, count: result.length, ok: !result.some((r) => r == null) };
}
const deep%d = () => { if (a) { if (b) { while (c) { for (;;) { do { switch (d) { case 1: { label: { try { x = ((((((((1)))))))) } finally {} } } } } while (e) } } } } };
`
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, unit, i, i)
	}
	return b.String()
}
