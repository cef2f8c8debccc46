package sandbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// webCases are expressions a chain script evaluates with the Web APIs of
// prelude/4*.js, each with the value Node 20 (TZ=UTC) gives, as JSON after
// webHarness's encoding (errors as "throws Name: message"). TestWebAPIs
// checks airlock against them; TestWebAPIsMatchNode checks them against
// node itself. Cases run in order in one script (the performance entries
// accumulate).
var webCases = []struct{ name, expr, want string }{
	{"url basic",
		"new URL(\"HTTP://User:Pa ss@EXAMPLE.com:80/a/./b/../c?q=1 2&r=é#frag ment\").href",
		"\"http://User:Pa%20ss@example.com/a/c?q=1%202&r=%C3%A9#frag%20ment\""},
	{"url parts",
		"(u => [u.protocol, u.username, u.password, u.host, u.hostname, u.port, u.pathname, u.search, u.hash, u.origin])(new URL(\"https://u:p@Sub.Example.com:8443/p/a?x=1#h\"))",
		"[\"https:\",\"u\",\"p\",\"sub.example.com:8443\",\"sub.example.com\",\"8443\",\"/p/a\",\"?x=1\",\"#h\",\"https://sub.example.com:8443\"]"},
	{"url default port",
		"[new URL(\"https://example.com:443/\").href, new URL(\"ws://a:80/\").port, new URL(\"http://a:0080/\").port]",
		"[\"https://example.com/\",\"\",\"\"]"},
	{"url relative path",
		"new URL(\"/path?x#y\", \"https://a.com/b/c\").href",
		"\"https://a.com/path?x#y\""},
	{"url relative dots",
		"new URL(\"../x\", \"http://a/b/c/d\").href",
		"\"http://a/b/x\""},
	{"url relative query",
		"new URL(\"?q\", \"http://a/b?c#d\").href",
		"\"http://a/b?q\""},
	{"url relative hash",
		"new URL(\"#h\", \"http://a/b?c#d\").href",
		"\"http://a/b?c#h\""},
	{"url scheme relative",
		"new URL(\"//other/x\", \"https://a/b\").href",
		"\"https://other/x\""},
	{"url base object",
		"new URL(\"y\", new URL(\"http://a/b/x\")).href",
		"\"http://a/b/y\""},
	{"url ipv6 port",
		"new URL(\"http://[::1]:8080/\").host",
		"\"[::1]:8080\""},
	{"url ipv6 compress",
		"[new URL(\"http://[2001:db8:0:0:1:0:0:1]/\").hostname, new URL(\"HTTP://[0:0:0:0:0:0:0:0]/\").host, new URL(\"http://[1:0:0:2:0:0:0:3]/\").host, new URL(\"http://[1:0:2:0:3:0:4:0]/\").host]",
		"[\"[2001:db8::1:0:0:1]\",\"[::]\",\"[1:0:0:2::3]\",\"[1:0:2:0:3:0:4:0]\"]"},
	{"url ipv6 v4",
		"[new URL(\"http://[::ffff:192.168.0.1]/\").hostname, new URL(\"http://[::1.2.3.4]/\").host]",
		"[\"[::ffff:c0a8:1]\",\"[::102:304]\"]"},
	{"url ipv6 bad",
		"[\"http://[1:2:3:4:5:6:7:8:9]\", \"http://[::1\", \"http://[1::2::3]/\", \"http://[::1.2.3]/\", \"http://[:1]/\", \"http://[::1]/\"].map(s => URL.canParse(s))",
		"[false,false,false,false,false,true]"},
	{"url ipv4 forms",
		"[\"http://0x7f.1/\", \"http://192.168.257/\", \"http://0300.0250.1.1/\", \"http://4294967295/\", \"http://1.2.3.4./\", \"http://0x/\"].map(s => new URL(s).hostname)",
		"[\"127.0.0.1\",\"192.168.1.1\",\"192.168.1.1\",\"255.255.255.255\",\"1.2.3.4\",\"0.0.0.0\"]"},
	{"url ipv4 bad",
		"[\"http://999999999999/\", \"http://1.2.3.4.5/\", \"http://256.1.1.1/\", \"http://1.2.3.09/\", \"http://4294967296/\"].map(s => URL.canParse(s))",
		"[false,false,false,false,false]"},
	{"url idna",
		"[\"http://münchen.de/\", \"http://例え.テスト/\", \"http://xn--mnchen-3ya.de/\", \"http://ÉXAMPLE.com/\", \"http://ＡＢ．com/\", \"http://a。b/\", \"http://faß.de/\", \"http://a\\u00adb.com/\", \"http://Bücher.example/\", \"http://😀.com/\"].map(s => new URL(s).host)",
		"[\"xn--mnchen-3ya.de\",\"xn--r8jz45g.xn--zckzah\",\"xn--mnchen-3ya.de\",\"xn--xample-9ua.com\",\"ab.com\",\"a.b\",\"xn--fa-hia.de\",\"ab.com\",\"xn--bcher-kva.example\",\"xn--e28h.com\"]"},
	{"url idna bad",
		"[\"http://xn--/\", \"http://xn--a/\", \"http://a\\uFFFDb/\", \"http://a b/\", \"http://a%20b/\", \"http://a<b/\", \"http://a.b.c.xn--pokxncvks\", \"http://xn--mnchen-3ya.de/\"].map(s => URL.canParse(s))",
		"[false,false,false,false,false,false,false,true]"},
	{"url pct host",
		"new URL(\"http://a%41.com/\").host",
		"\"aa.com\""},
	{"url file",
		"[new URL(\"file:///C:/x/../y\").href, new URL(\"file://localhost/etc/passwd\").href, new URL(\"file:c:\\\\foo\\\\bar\").href, new URL(\"file:///a/b/../../..\").href, new URL(\"file://host/share\").host]",
		"[\"file:///C:/y\",\"file:///etc/passwd\",\"file:///c:/foo/bar\",\"file:///\",\"host\"]"},
	{"url file relative",
		"[new URL(\"../z\", \"file:///C:/a/b\").href, new URL(\"/d\", \"file:///C:/a\").href]",
		"[\"file:///C:/z\",\"file:///C:/d\"]"},
	{"url opaque",
		"(u => [u.href, u.protocol, u.pathname, u.search, u.host])(new URL(\"mailto:someone@example.com?subject=hi there\"))",
		"[\"mailto:someone@example.com?subject=hi%20there\",\"mailto:\",\"someone@example.com\",\"?subject=hi%20there\",\"\"]"},
	{"url data",
		"[new URL(\"data:text/plain,hello world\").pathname, new URL(\"javascript:alert(1)\").protocol, new URL(\"data:a b  \").href]",
		"[\"text/plain,hello world\",\"javascript:\",\"data:a b\"]"},
	{"url non-special",
		"[new URL(\"foo://host/p a t h?q r#f\").href, new URL(\"foo://[::1]/\").host, new URL(\"foo:/a/../../b\").href, new URL(\"sc://ñ.com/\").host, new URL(\"non-special://test:@test/x\").href, new URL(\"foo:///x\").href]",
		"[\"foo://host/p%20a%20t%20h?q%20r#f\",\"[::1]\",\"foo:/b\",\"%C3%B1.com\",\"non-special://test@test/x\",\"foo:///x\"]"},
	{"url path encoding",
		"[new URL(\"http://a/b c/%zz/é/{}|^`\").pathname, new URL(\"http://a/b\\\\c\").pathname, new URL(\"foo://a/b\\\\c\").pathname]",
		"[\"/b%20c/%zz/%C3%A9/%7B%7D|^%60\",\"/b/c\",\"/b\\\\c\"]"},
	{"url query encoding",
		"[new URL(\"http://a/?'x' \\\"<>`\").search, new URL(\"foo://a/?'x'\").search, new URL(\"http://a/#a b<>`\\\"\").hash]",
		"[\"?%27x%27%20%22%3C%3E`\",\"?'x'\",\"#a%20b%3C%3E%60%22\"]"},
	{"url userinfo encoding",
		"new URL(\"http://a b:c@d:e@host/\").href",
		"\"http://a%20b:c%40d%3Ae@host/\""},
	{"url whitespace",
		"new URL(\"  http://a/\\t\\nb  \").href",
		"\"http://a/b\""},
	{"url slashes",
		"[new URL(\"http:/example.com/\").href, new URL(\"http:\\\\\\\\example.com\\\\x\").href, new URL(\"https:example.com\").href]",
		"[\"http://example.com/\",\"http://example.com/x\",\"https://example.com/\"]"},
	{"url trailing dot",
		"new URL(\"http://example.com./\").host",
		"\"example.com.\""},
	{"url origins",
		"[new URL(\"https://example.com/\").origin, new URL(\"blob:https://a.com/x\").origin, new URL(\"file:///x\").origin, new URL(\"foo://x\").origin, new URL(\"http://a:81\").origin]",
		"[\"https://example.com\",\"https://a.com\",\"null\",\"null\",\"http://a:81\"]"},
	{"url invalid",
		"(() => { try { new URL(\"foo\") } catch (e) { return [e.name, e.message, e.code, e.input, e instanceof TypeError] } })()",
		"[\"TypeError\",\"Invalid URL\",\"ERR_INVALID_URL\",\"foo\",true]"},
	{"url invalid base",
		"(() => { try { new URL(\"x\", \"bad\") } catch (e) { return [e.code, e.input, e.base] } })()",
		"[\"ERR_INVALID_URL\",\"x\",\"bad\"]"},
	{"url invalid cases",
		"[\"\", \"http://\", \"http://user@/\", \"http://a:99999/\", \"http://a:b/\", \"//x\", \"http://[/\"].map(s => URL.canParse(s))",
		"[false,false,false,false,false,false,false]"},
	{"url canParse",
		"[URL.canParse(\"http://x\"), URL.canParse(\"nope\"), URL.canParse(\"/a\", \"http://b\"), URL.canParse(\"/a\", \"nope\")]",
		"[true,false,true,false]"},
	{"url parse",
		"[URL.parse(\"nope\"), URL.parse(\"/a\", \"http://b\").href]",
		"[null,\"http://b/a\"]"},
	{"url setters",
		"(u => { u.protocol = \"https\"; u.host = \"b.com:81\"; u.pathname = \"x y\"; u.search = \"a=1\"; u.hash = \"z\"; u.username = \"me\"; u.password = \"p w\"; return u.href })(new URL(\"http://a.com/p?q#h\"))",
		"\"https://me:p%20w@b.com:81/x%20y?a=1#z\""},
	{"url protocol setter",
		"(u => { u.protocol = \"foo\"; const a = u.href; u.protocol = \"ws:\"; return [a, u.href] })(new URL(\"http://a.com:80/\"))",
		"[\"http://a.com/\",\"ws://a.com/\"]"},
	{"url port setter",
		"(u => { const r = []; u.port = \"8080abc\"; r.push(u.port); u.port = \"99999\"; r.push(u.port); u.port = \"\"; r.push(u.href); u.port = \"443\"; r.push(u.port); u.port = 444; r.push(u.port); return r })(new URL(\"https://a/\"))",
		"[\"8080\",\"8080\",\"https://a/\",\"\",\"444\"]"},
	{"url hostname setter",
		"(u => { const r = []; u.hostname = \"x.com:99\"; r.push(u.href); u.hostname = \"y.com\"; r.push(u.href); u.host = \"\"; r.push(u.href); u.hostname = \"a b\"; r.push(u.href); return r })(new URL(\"http://a.com:81/\"))",
		"[\"http://a.com:81/\",\"http://y.com:81/\",\"http://y.com:81/\",\"http://y.com:81/\"]"},
	{"url href setter",
		"(() => { const u = new URL(\"http://a/?x=1\"); const p = u.searchParams; u.href = \"http://b/?y=2\"; let err; try { u.href = \"nope\" } catch (e) { err = e.message } return [u.href, p.get(\"y\"), err] })()",
		"[\"http://b/?y=2\",\"2\",\"Invalid URL\"]"},
	{"url pathname setter",
		"(u => { u.pathname = \"/a/../b/%2e/c d\"; const a = u.pathname; const m = new URL(\"mailto:x\"); m.pathname = \"y\"; return [a, m.href] })(new URL(\"http://h/\"))",
		"[\"/b/c%20d\",\"mailto:x\"]"},
	{"url hash search clear",
		"(u => { u.hash = \"\"; u.search = \"\"; const a = u.href; const d = new URL(\"data:a b #x\"); d.hash = \"\"; return [a, d.href] })(new URL(\"http://h/p?q#f\"))",
		"[\"http://h/p\",\"data:a b\"]"},
	{"url search params live",
		"(u => { u.searchParams.append(\"c\", \"x y\"); u.searchParams.sort(); const a = u.href; u.search = \"?z=9\"; const b = u.searchParams.get(\"z\"); u.searchParams.delete(\"z\"); return [a, b, u.href, u.search] })(new URL(\"http://a/?b=2&a=1\"))",
		"[\"http://a/?a=1&b=2&c=x+y\",\"9\",\"http://a/\",\"\"]"},
	{"url json",
		"[JSON.stringify({u: new URL(\"http://a\")}), String(new URL(\"http://a\")), Object.prototype.toString.call(new URL(\"http://a\")), Object.keys(URL.prototype).join()]",
		"[\"{\\\"u\\\":\\\"http://a/\\\"}\",\"http://a/\",\"[object URL]\",\"toString,href,origin,protocol,username,password,host,hostname,port,pathname,search,searchParams,hash,toJSON\"]"},
	{"url missing arg",
		"(() => { try { new URL() } catch (e) { return [e.name, e.message, e.code] } })()",
		"[\"TypeError\",\"The \\\"url\\\" argument must be specified\",\"ERR_MISSING_ARGS\"]"},
	{"usp getAll",
		"new URLSearchParams(\"?a=1&b=2&a=3\").getAll(\"a\")",
		"[\"1\",\"3\"]"},
	{"usp record",
		"new URLSearchParams({a: \"1\", b: \"x y\", c: [1, 2]}).toString()",
		"\"a=1&b=x+y&c=1%2C2\""},
	{"usp pairs",
		"new URLSearchParams([[\"a\", \"1\"], [\"b\", \"2\"]]).toString()",
		"\"a=1&b=2\""},
	{"usp iterate",
		"(p => [[...p.entries()], [...p.keys()], [...p.values()], [...p]])(new URLSearchParams(\"a=1&b=2\"))",
		"[[[\"a\",\"1\"],[\"b\",\"2\"]],[\"a\",\"b\"],[\"1\",\"2\"],[[\"a\",\"1\"],[\"b\",\"2\"]]]"},
	{"usp decode",
		"(p => [p.get(\"q\"), p.get(\"r\"), p.get(\"s\"), p.get(\"t\"), p.get(\"none\")])(new URLSearchParams(\"q=%zz&r=%E2%82%AC&s=a+b&t=%ff\"))",
		"[\"%zz\",\"€\",\"a b\",\"�\",null]"},
	{"usp size has delete",
		"(p => [p.size, p.has(\"a\", \"2\"), p.has(\"a\", \"9\"), (p.delete(\"a\", \"1\"), p.toString())])(new URLSearchParams(\"a=1&a=2&b=3\"))",
		"[3,true,false,\"a=2&b=3\"]"},
	{"usp sort",
		"(p => (p.sort(), p.toString()))(new URLSearchParams(\"c=1&a=2&b=3&a=1&é=1&z=2\"))",
		"\"a=2&a=1&b=3&c=1&z=2&%C3%A9=1\""},
	{"usp set",
		"(p => (p.set(\"a\", \"9\"), p.toString()))(new URLSearchParams(\"a=1&b=2&a=3\"))",
		"\"a=9&b=2\""},
	{"usp encode",
		"new URLSearchParams({k: \"!'()~*-._ &=+/%é😀\"}).toString()",
		"\"k=%21%27%28%29%7E*-._+%26%3D%2B%2F%25%C3%A9%F0%9F%98%80\""},
	{"usp iterator tag",
		"Object.prototype.toString.call(new URLSearchParams().keys())",
		"\"[object URLSearchParams Iterator]\""},
	{"usp forEach",
		"(() => { const r = []; new URLSearchParams(\"a=1&b=2\").forEach((v, k, p) => r.push(k + v + (p instanceof URLSearchParams))); return r })()",
		"[\"a1true\",\"b2true\"]"},
	{"usp bad tuple",
		"(() => { try { new URLSearchParams([[\"a\"]]) } catch (e) { return [e.name, e.message, e.code] } })()",
		"[\"TypeError\",\"Each query pair must be an iterable [name, value] tuple\",\"ERR_INVALID_TUPLE\"]"},
	{"usp null",
		"[new URLSearchParams(null).toString(), new URLSearchParams(5).toString(), new URLSearchParams(\"?\").toString(), new URLSearchParams(\"a&=b&&c=\").toString()]",
		"[\"\",\"5=\",\"\",\"a=&=b&c=\"]"},
	{"usp missing args",
		"(() => { const r = []; try { new URLSearchParams().get() } catch (e) { r.push(e.message) } try { new URLSearchParams().append(\"a\") } catch (e) { r.push(e.message) } return r })()",
		"[\"The \\\"name\\\" argument must be specified\",\"The \\\"name\\\" and \\\"value\\\" arguments must be specified\"]"},
	{"usp live iterator",
		"(() => { const p = new URLSearchParams(\"a=1\"); const it = p.keys(); p.append(\"b\", \"2\"); return [...it] })()",
		"[\"a\",\"b\"]"},
	{"te encode",
		"[...new TextEncoder().encode(\"a€😀\\ud800\")]",
		"[97,226,130,172,240,159,152,128,239,191,189]"},
	{"te encodeInto",
		"(() => { const b = new Uint8Array(5); const r = new TextEncoder().encodeInto(\"a€b😀\", b); return [r.read, r.written, [...b]] })()",
		"[3,5,[97,226,130,172,98]]"},
	{"te misc",
		"[new TextEncoder().encoding, new TextEncoder().encode().length, new TextEncoder().encode(123).length]",
		"[\"utf-8\",0,3]"},
	{"td bom",
		"[new TextDecoder().decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69])), new TextDecoder(\"utf-8\", {ignoreBOM: true}).decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x68])).length]",
		"[\"hi\",2]"},
	{"td replacement",
		"new TextDecoder().decode(new Uint8Array([0xff, 0x41, 0xe2, 0x82, 0x41, 0xf0, 0x9f, 0x98, 0xc0, 0x80, 0xed, 0xa0, 0x80, 0xf4, 0x90, 0x80, 0x80, 0xe2, 0x82]))",
		"\"�A�A�����������\""},
	{"td fatal",
		"(() => { try { new TextDecoder(\"utf-8\", {fatal: true}).decode(new Uint8Array([0x41, 0xc3])) } catch (e) { return [e.name, e.message, e.code] } })()",
		"[\"TypeError\",\"The encoded data was not valid for encoding utf-8\",\"ERR_ENCODING_INVALID_ENCODED_DATA\"]"},
	{"td stream",
		"(d => [d.decode(new Uint8Array([0xf0, 0x9f]), {stream: true}), d.decode(new Uint8Array([0x98]), {stream: true}), d.decode(new Uint8Array([0x80, 0x41])), d.decode(new Uint8Array([0xe2, 0x82]), {stream: true}), d.decode()])(new TextDecoder())",
		"[\"\",\"\",\"😀A\",\"\",\"�\"]"},
	{"td stream bom",
		"(d => [d.decode(new Uint8Array([0xef, 0xbb]), {stream: true}), d.decode(new Uint8Array([0xbf, 0x61]), {stream: true}), d.decode(new Uint8Array([0xef, 0xbb, 0xbf]))])(new TextDecoder())",
		"[\"\",\"a\",\"\ufeff\"]"},
	{"td labels",
		"[\"UTF8\", \" utf-8 \", \"latin1\", \"ascii\", \"utf-16\", \"UTF-16LE\", \"unicode-1-1-utf-8\"].map(l => new TextDecoder(l).encoding)",
		"[\"utf-8\",\"utf-8\",\"windows-1252\",\"windows-1252\",\"utf-16le\",\"utf-16le\",\"utf-8\"]"},
	{"td bad label",
		"(() => { try { new TextDecoder(\"xx\") } catch (e) { return [e.name, e.message, e.code] } })()",
		"[\"RangeError\",\"The \\\"xx\\\" encoding is not supported\",\"ERR_ENCODING_NOT_SUPPORTED\"]"},
	{"td bad input",
		"(() => { try { new TextDecoder().decode(\"abc\") } catch (e) { return [e.name, e.code] } })()",
		"[\"TypeError\",\"ERR_INVALID_ARG_TYPE\"]"},
	{"td inputs",
		"[new TextDecoder().decode(new Uint8Array([104, 105]).buffer), new TextDecoder().decode(new DataView(new Uint8Array([0, 104, 105]).buffer, 1)), new TextDecoder().decode(new Uint16Array([0x6968])), new TextDecoder().decode(), new TextDecoder().decode(undefined)]",
		"[\"hi\",\"hi\",\"hi\",\"\",\"\"]"},
	{"td latin1",
		"new TextDecoder(\"latin1\").decode(new Uint8Array([0x41, 0xe9, 0xff]))",
		"\"Aéÿ\""},
	{"td utf16",
		"[new TextDecoder(\"utf-16le\").decode(new Uint8Array([0x41, 0, 0x3d, 0xd8, 0x00, 0xde, 0x42])), (d => d.decode(new Uint8Array([0x3d, 0xd8, 0x00]), {stream: true}) + d.decode(new Uint8Array([0xde])))(new TextDecoder(\"utf-16le\")), new TextDecoder(\"utf-16le\").decode(new Uint8Array([0x00, 0xdc, 0x41, 0x00]))]",
		"[\"A😀�\",\"😀\",\"�A\"]"},
	{"td props",
		"(d => [d.encoding, d.fatal, d.ignoreBOM, Object.prototype.toString.call(d)])(new TextDecoder(\"utf8\", {fatal: 1}))",
		"[\"utf-8\",true,false,\"[object TextDecoder]\"]"},
	{"base64",
		"[btoa(\"hello\"), atob(\" aGVs bG8=\\n\"), atob(\"YQ\"), atob(\"YQ==\"), atob(\"YR==\"), btoa(String.fromCharCode(0, 255, 128)), atob(\"AP+A\"), btoa(\"\"), atob(\"\"), btoa(12)]",
		"[\"aGVsbG8=\",\"hello\",\"a\",\"a\",\"a\",\"AP+A\",\"\\u0000ÿ\u0080\",\"\",\"\",\"MTI=\"]"},
	{"atob errors",
		"[\"YQ=\", \"YQ===\", \"Y=Q=\", \"a\", \"ab$c\", \"=\", \"YQ=a\", \"é\", \"YQ==\\n=\"].map(s => { try { return atob(s) } catch (e) { return e.name + \": \" + e.message } })",
		"[\"InvalidCharacterError: Invalid character\",\"InvalidCharacterError: Invalid character\",\"InvalidCharacterError: Invalid character\",\"InvalidCharacterError: The string to be decoded is not correctly encoded.\",\"InvalidCharacterError: Invalid character\",\"InvalidCharacterError: Invalid character\",\"InvalidCharacterError: Invalid character\",\"InvalidCharacterError: Invalid character\",\"InvalidCharacterError: Invalid character\"]"},
	{"btoa errors",
		"[\"é\", \"€\", \"\\ud800\"].map(s => { try { return btoa(s) } catch (e) { return [e instanceof DOMException, e.name, e.code, e.message] } })",
		"[\"6Q==\",[true,\"InvalidCharacterError\",5,\"Invalid character\"],[true,\"InvalidCharacterError\",5,\"Invalid character\"]]"},
	{"base64 missing",
		"(() => { try { atob() } catch (e) { return [e.name, e.message, e.code] } })()",
		"[\"TypeError\",\"The \\\"input\\\" argument must be specified\",\"ERR_MISSING_ARGS\"]"},
	{"clone cycles",
		"(() => { const o = {n: 1}; o.self = o; o.list = [o, {shared: 1}]; o.list.push(o.list[1]); const c = structuredClone(o); return [c !== o, c.self === c, c.list[0] === c, c.list[1] === c.list[2], c.n] })()",
		"[true,true,true,true,1]"},
	{"clone types",
		"(() => { const c = structuredClone({m: new Map([[{k: 1}, new Set([1, 2])]]), d: new Date(5), r: /a+/gi, b: Object(1n), s: Object(\"x\"), n: null, u: undefined, neg: -0, big: 2n ** 70n}); return [c.m instanceof Map, [...c.m.keys()][0].k, [...[...c.m.values()][0]], c.d instanceof Date, c.d.getTime(), c.r.source, c.r.flags, typeof c.b, typeof c.s, c.n, \"u\" in c, Object.is(c.neg, -0), String(c.big)] })()",
		"[true,1,[1,2],true,5,\"a+\",\"gi\",\"object\",\"object\",null,true,true,\"1180591620717411303424\"]"},
	{"clone buffers",
		"(() => { const buf = new ArrayBuffer(8); const a = new Uint8Array(buf, 2, 4); a.set([1, 2, 3, 4]); const v = new DataView(buf, 1, 3); const c = structuredClone({a, v, f: new Float64Array([1.5])}); return [c.a.buffer === c.v.buffer, c.a.byteOffset, [...c.a], c.v.byteLength, c.v.byteOffset, c.f[0], c.a.buffer !== buf] })()",
		"[true,2,[1,2,3,4],3,1,1.5,true]"},
	{"clone errors",
		"(() => { const e = new TypeError(\"m\", {cause: {x: 1}}); e.extra = 2; const c = structuredClone(e); class X extends RangeError { constructor() { super(\"x\"); this.name = \"Custom\" } } const c2 = structuredClone(new X()); return [c instanceof TypeError, c.name, c.message, c.cause.x, c.extra, Object.getOwnPropertyNames(c), c2.constructor.name, c2.name, c2.message] })()",
		"[true,\"TypeError\",\"m\",1,\"<undefined>\",[\"stack\",\"message\",\"cause\"],\"Error\",\"Error\",\"x\"]"},
	{"clone objects",
		"(() => { class P { constructor() { this.a = 1 } get g() { return 2 } } const arr = [1, , 3]; arr.p = 4; const c = structuredClone({p: new P(), arr, get x() { return 5 }, o: Object.create({inh: 1}, {own: {value: 1, enumerable: true}, hid: {value: 2}})}); return [Object.getPrototypeOf(c.p) === Object.prototype, c.p.g, 1 in c.arr, c.arr.length, c.arr.p, c.x, c.o.inh, c.o.own, c.o.hid] })()",
		"[true,\"<undefined>\",false,3,4,5,\"<undefined>\",1,\"<undefined>\"]"},
	{"clone uncloneable",
		"[() => 1, function foo(a) { return a }, Symbol(\"x\"), {a: Symbol()}, new WeakMap(), Promise.resolve(), {f() {}}].map(v => { try { structuredClone(v); return \"ok\" } catch (e) { return [e instanceof DOMException, e.name, e.code, e.message] } })",
		"[[true,\"DataCloneError\",25,\"() => 1 could not be cloned.\"],[true,\"DataCloneError\",25,\"function foo(a) { return a } could not be cloned.\"],[true,\"DataCloneError\",25,\"Symbol(x) could not be cloned.\"],[true,\"DataCloneError\",25,\"Symbol() could not be cloned.\"],[true,\"DataCloneError\",25,\"#<WeakMap> could not be cloned.\"],[true,\"DataCloneError\",25,\"#<Promise> could not be cloned.\"],[true,\"DataCloneError\",25,\"f() {} could not be cloned.\"]]"},
	{"clone misc",
		"(() => { let e1, e2; try { structuredClone() } catch (e) { e1 = [e.name, e.code] } try { structuredClone(1, {transfer: 5}) } catch (e) { e2 = [e.name, e.code] } return [e1, e2, structuredClone(\"s\"), structuredClone(null)] })()",
		"[[\"TypeError\",\"ERR_MISSING_ARGS\"],[\"TypeError\",\"ERR_INVALID_ARG_TYPE\"],\"s\",null]"},
	{"clone deep",
		"(() => { let d = {}; for (let i = 0; i < 1000; i++) d = {d}; let c = structuredClone(d), n = 0; while (c.d) { c = c.d; n++ } return n })()",
		"1000"},
	{"uuid",
		"(() => { const ids = Array.from({length: 40}, () => crypto.randomUUID()); return [ids.every(s => /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(s)), new Set(ids).size] })()",
		"[true,40]"},
	{"getRandomValues",
		"(() => { const a = new Uint32Array(16); const r = crypto.getRandomValues(a); const big = crypto.getRandomValues(new Uint8Array(65536)); return [r === a, a.some(x => x !== 0), big.length, new Set(big).size > 200, crypto.getRandomValues(new BigInt64Array(2)).length, crypto.getRandomValues(new Int16Array(0)).length] })()",
		"[true,true,65536,true,2,0]"},
	{"getRandomValues errors",
		"[() => crypto.getRandomValues(new Uint8Array(65537)), () => crypto.getRandomValues(new Float32Array(2)), () => crypto.getRandomValues([1]), () => crypto.getRandomValues(new DataView(new ArrayBuffer(2))), () => crypto.getRandomValues(), () => crypto.getRandomValues.call({}, new Uint8Array(1))].map(f => { try { f(); return \"ok\" } catch (e) { return [e.constructor.name, e.name, e.code, e.message] } })",
		"[[\"DOMException\",\"QuotaExceededError\",22,\"The requested length exceeds 65,536 bytes\"],[\"DOMException\",\"TypeMismatchError\",17,\"The data argument must be an integer-type TypedArray\"],[\"DOMException\",\"TypeMismatchError\",17,\"The data argument must be an integer-type TypedArray\"],[\"DOMException\",\"TypeMismatchError\",17,\"The data argument must be an integer-type TypedArray\"],[\"TypeError\",\"TypeError\",\"ERR_MISSING_ARGS\",\"Failed to execute 'getRandomValues' on 'Crypto': 1 argument required, but only 0 present.\"],[\"TypeError\",\"TypeError\",\"ERR_INVALID_THIS\",\"Value of \\\"this\\\" must be of type Crypto\"]]"},
	{"crypto objects",
		"[String(crypto), String(crypto.subtle), typeof Crypto, typeof SubtleCrypto, crypto instanceof Crypto, Object.keys(crypto).length, typeof crypto.subtle.digest]",
		"[\"[object Crypto]\",\"[object SubtleCrypto]\",\"function\",\"function\",true,0,\"function\"]"},
	{"digest",
		"Promise.all([\"SHA-1\", \"sha-256\", {name: \"SHA-384\"}, \"SHA-512\"].map(a => crypto.subtle.digest(a, new TextEncoder().encode(\"abc\")))).then(bs => bs.map(b => [b instanceof ArrayBuffer, Array.from(new Uint8Array(b), x => x.toString(16).padStart(2, \"0\")).join(\"\")]))",
		"[[true,\"a9993e364706816aba3e25717850c26c9cd0d89d\"],[true,\"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\"],[true,\"cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7\"],[true,\"ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f\"]]"},
	{"digest inputs",
		"Promise.all([new ArrayBuffer(0), new DataView(new Uint8Array([0, 1, 2, 255]).buffer, 1), new Uint16Array([0, 65535]), new Uint8Array(300000)].map(d => crypto.subtle.digest(\"SHA-256\", d))).then(bs => bs.map(b => Array.from(new Uint8Array(b), x => x.toString(16).padStart(2, \"0\")).join(\"\")))",
		"[\"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\",\"0526d0e18ea19dfaad9d79166bec1e18d6221ef6b1830385fe9bf67022ed5f96\",\"b7d1b3a1104cc86b1cea310793cf777002db0517281d135a02de079b0ea87c23\",\"886715e4051e827f4fe215df3053af3f85ad0d352db2c829c7487af6d78efe30\"]"},
	{"digest errors",
		"Promise.all([[\"md5\", new Uint8Array(1)], [{name: \"SHA-1\"}, \"abc\"], [], [{}, new Uint8Array(1)]].map(a => crypto.subtle.digest(...a).then(() => \"ok\", e => [e.constructor.name, e.name, e.message])))",
		"[[\"DOMException\",\"NotSupportedError\",\"Unrecognized algorithm name\"],[\"TypeError\",\"TypeError\",\"Failed to execute 'digest' on 'SubtleCrypto': 2nd argument is not instance of ArrayBuffer, Buffer, TypedArray, or DataView.\"],[\"TypeError\",\"TypeError\",\"Failed to execute 'digest' on 'SubtleCrypto': 2 arguments required, but only 0 present.\"],[\"TypeError\",\"TypeError\",\"Failed to normalize algorithm: passed algorithm can not be converted to 'Algorithm' because 'name' is required in 'Algorithm'.\"]]"},
	{"abort controller",
		"(c => { const r = []; c.signal.onabort = ev => r.push(\"onabort \" + ev.type + \" \" + ev.isTrusted); c.signal.addEventListener(\"abort\", () => r.push(\"listener\")); const before = c.signal.aborted; c.abort(\"why\"); c.abort(\"again\"); let t; try { c.signal.throwIfAborted() } catch (e) { t = e } return [before, c.signal.aborted, c.signal.reason, t, r] })(new AbortController())",
		"[false,true,\"why\",\"why\",[\"onabort abort true\",\"listener\"]]"},
	{"abort default reason",
		"(c => { c.abort(); const e = c.signal.reason; return [e instanceof DOMException, e.name, e.message, e.code] })(new AbortController())",
		"[true,\"AbortError\",\"This operation was aborted\",20]"},
	{"abort static",
		"(() => { const s = AbortSignal.abort(); const s2 = AbortSignal.abort(7); let e; try { new AbortSignal() } catch (x) { e = [x.name, x.message, x.code] } return [s.aborted, s.reason.name, s2.reason, e, String(s), new AbortController().signal.reason] })()",
		"[true,\"AbortError\",7,[\"TypeError\",\"Illegal constructor\",\"ERR_ILLEGAL_CONSTRUCTOR\"],\"[object AbortSignal]\",\"<undefined>\"]"},
	{"abort any",
		"(() => { const a = new AbortController(), b = new AbortController(); const any = AbortSignal.any([a.signal, b.signal]); const before = any.aborted; b.abort(\"B\"); a.abort(\"A\"); const pre = AbortSignal.any([AbortSignal.abort(\"P\"), a.signal]); return [before, any.aborted, any.reason, pre.reason, AbortSignal.any([]).aborted] })()",
		"[false,true,\"B\",\"P\",false]"},
	{"abort any errors",
		"[() => AbortSignal.any(5), () => AbortSignal.any([5]), () => AbortSignal.timeout(-1), () => AbortSignal.timeout(\"1\")].map(f => { try { f(); return \"ok\" } catch (e) { return [e.name, e.message, e.code] } })",
		"[[\"TypeError\",\"The \\\"signals\\\" argument must be an instance of Array. Received type number (5)\",\"ERR_INVALID_ARG_TYPE\"],[\"TypeError\",\"The \\\"signals[0]\\\" argument must be an instance of AbortSignal. Received type number (5)\",\"ERR_INVALID_ARG_TYPE\"],[\"RangeError\",\"The value of \\\"delay\\\" is out of range. It must be >= 0 && <= 4294967295. Received -1\",\"ERR_OUT_OF_RANGE\"],[\"TypeError\",\"The \\\"delay\\\" argument must be of type number. Received type string ('1')\",\"ERR_INVALID_ARG_TYPE\"]]"},
	{"abort timeout",
		"(async () => { const s = AbortSignal.timeout(20); const a = s.aborted; await new Promise(r => setTimeout(r, 60)); return [a, s.aborted, s.reason.name, s.reason.message, s.reason.code] })()",
		"[false,true,\"TimeoutError\",\"The operation was aborted due to timeout\",23]"},
	{"event target",
		"(() => { const t = new EventTarget(), r = []; const f = e => r.push(\"f\" + e.type); t.addEventListener(\"x\", f); t.addEventListener(\"x\", f); t.addEventListener(\"x\", e => r.push(\"once\"), {once: true}); t.addEventListener(\"x\", {handleEvent(e) { r.push(\"obj \" + (this !== t)) }}); t.addEventListener(\"x\", function (e) { r.push(\"this \" + (this === t) + \" \" + (e.target === t)) }); t.dispatchEvent(new Event(\"x\")); t.removeEventListener(\"x\", f); t.dispatchEvent(new Event(\"x\")); return r })()",
		"[\"fx\",\"once\",\"obj true\",\"this true true\",\"obj true\",\"this true true\"]"},
	{"event signal option",
		"(() => { const t = new EventTarget(), c = new AbortController(), r = []; t.addEventListener(\"x\", () => r.push(1), {signal: c.signal}); t.dispatchEvent(new Event(\"x\")); c.abort(); t.dispatchEvent(new Event(\"x\")); t.addEventListener(\"x\", () => r.push(2), {signal: c.signal}); t.dispatchEvent(new Event(\"x\")); return r })()",
		"[1]"},
	{"event current",
		"(() => { const t = new EventTarget(), r = []; t.addEventListener(\"x\", e => r.push(e.currentTarget === t, e.eventPhase, e.composedPath().length)); t.dispatchEvent(new Event(\"x\")); return r })()",
		"[true,2,1]"},
	{"event cancel",
		"(() => { const t = new EventTarget(); t.addEventListener(\"x\", e => e.preventDefault()); const e1 = new Event(\"x\", {cancelable: true}), e2 = new Event(\"x\"); return [t.dispatchEvent(e1), e1.defaultPrevented, t.dispatchEvent(e2), e2.defaultPrevented, e1.eventPhase, e1.currentTarget, e1.target === t] })()",
		"[false,true,true,false,0,null,true]"},
	{"event stopImmediate",
		"(() => { const t = new EventTarget(), r = []; t.addEventListener(\"x\", e => { r.push(1); e.stopImmediatePropagation() }); t.addEventListener(\"x\", () => r.push(2)); t.dispatchEvent(new Event(\"x\")); return r })()",
		"[1]"},
	{"event props",
		"(e => [e.type, e.bubbles, e.cancelable, e.composed, e.defaultPrevented, e.eventPhase, e.target, e.isTrusted, e.returnValue, typeof e.timeStamp, Event.AT_TARGET, e.NONE, String(e), Object.keys(e)])(new Event(\"t\", {bubbles: true}))",
		"[\"t\",true,false,false,false,0,null,false,true,\"number\",2,\"<undefined>\",\"[object Event]\",[]]"},
	{"event errors",
		"[() => new Event(), () => new EventTarget().dispatchEvent({type: \"x\"}), () => new EventTarget().addEventListener(\"x\")].map(f => { try { f(); return \"ok\" } catch (e) { return [e.name, e.message, e.code] } })",
		"[[\"TypeError\",\"The \\\"type\\\" argument must be specified\",\"ERR_MISSING_ARGS\"],[\"TypeError\",\"The \\\"event\\\" argument must be an instance of Event. Received an instance of Object\",\"ERR_INVALID_ARG_TYPE\"],[\"TypeError\",\"The \\\"type\\\" and \\\"listener\\\" arguments must be specified\",\"ERR_MISSING_ARGS\"]]"},
	{"domexception",
		"[new DOMException(\"m\", \"NotFoundError\").code, new DOMException(\"m\").name, new DOMException(\"m\", \"AbortError\").code, String(new DOMException(\"m\", \"DataCloneError\")), new DOMException() instanceof Error]",
		"[8,\"Error\",20,\"DataCloneError: m\",true]"},
	{"performance",
		"(() => { performance.mark(\"a\", {startTime: 10, detail: {x: 1}}); performance.mark(\"b\", {startTime: 25}); const m = performance.measure(\"ab\", \"a\", \"b\"); const m2 = performance.measure(\"o\", {start: 1, end: 4, detail: 3}); const m3 = performance.measure(\"d\", {start: 2, duration: 3}); return [m.name, m.entryType, m.startTime, m.duration, m.detail, m2.duration, m2.detail, m3.startTime, m3.duration, performance.getEntriesByName(\"a\")[0].detail, performance.getEntriesByType(\"mark\").map(e => e.name), performance.getEntries().map(e => e.name), JSON.stringify(performance.getEntriesByName(\"b\")[0]), String(m)] })()",
		"[\"ab\",\"measure\",10,15,null,3,3,2,3,{\"x\":1},[\"a\",\"b\"],[\"o\",\"d\",\"a\",\"ab\",\"b\"],\"{\\\"name\\\":\\\"b\\\",\\\"entryType\\\":\\\"mark\\\",\\\"startTime\\\":25,\\\"duration\\\":0,\\\"detail\\\":null}\",\"[object PerformanceMeasure]\"]"},
	{"performance clear",
		"(() => { performance.mark(\"x\", {startTime: 1}); performance.mark(\"y\", {startTime: 2}); performance.measure(\"z\", \"x\", \"y\"); performance.clearMarks(\"x\"); const a = performance.getEntries().map(e => e.name); performance.clearMarks(); performance.clearMeasures(); return [a, performance.getEntries().length] })()",
		"[[\"o\",\"z\",\"y\",\"d\",\"a\",\"ab\",\"b\"],0]"},
	{"performance errors",
		"[() => performance.measure(\"m\", \"nope\"), () => performance.mark(), () => performance.mark(\"x\", {startTime: -1}), () => performance.measure(\"m\", {start: 1, end: 2, duration: 1}), () => new PerformanceEntry()].map(f => { try { f(); return \"ok\" } catch (e) { return [e.name, e.message, e.code] } })",
		"[[\"SyntaxError\",\"The \\\"nope\\\" performance mark has not been set\",12],[\"TypeError\",\"The \\\"name\\\" argument must be specified\",\"ERR_MISSING_ARGS\"],[\"TypeError\",\"-1 is not a valid timestamp\",\"ERR_PERFORMANCE_INVALID_TIMESTAMP\"],[\"TypeError\",\"Must not have options.start, options.end, and options.duration specified\",\"ERR_PERFORMANCE_MEASURE_INVALID_OPTIONS\"],[\"TypeError\",\"Illegal constructor\",\"ERR_ILLEGAL_CONSTRUCTOR\"]]"},
	{"performance now",
		"[typeof performance.now(), performance.now() >= 0, typeof performance.timeOrigin, performance.measure(\"n\").startTime, new PerformanceMark(\"q\").entryType]",
		"[\"number\",true,\"number\",0,\"mark\"]"},
	{"globals",
		"[[\"structuredClone\", \"atob\", \"btoa\", \"performance\", \"crypto\"].filter(k => Object.keys(globalThis).includes(k)), [\"URL\", \"URLSearchParams\", \"TextEncoder\", \"TextDecoder\", \"AbortController\", \"AbortSignal\", \"Event\", \"CustomEvent\", \"EventTarget\", \"DOMException\", \"Crypto\", \"PerformanceMark\"].filter(k => typeof globalThis[k] !== \"function\" || Object.keys(globalThis).includes(k))]",
		"[[\"structuredClone\",\"atob\",\"btoa\",\"performance\",\"crypto\"],[]]"},
	{"td invalid alone",
		"[[0xed, 0xa0, 0x80], [0xc0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0xef, 0xbf, 0xbf], [0xf0, 0x9f, 0x98, 0x80]].map(a => [...new TextDecoder().decode(new Uint8Array(a))].map(c => c.codePointAt(0)))",
		"[[65533,65533,65533],[65533,65533],[65533,65533,65533,65533],[65533],[65535],[128512]]"},
	{"td blocks",
		"(() => { const s = \"a€😀\".repeat(30000); const b = new TextEncoder().encode(s); const d = new TextDecoder(); const parts = []; for (let i = 0; i < b.length; i += 70001) parts.push(d.decode(b.subarray(i, i + 70001), {stream: true})); parts.push(d.decode()); return [b.length, parts.join(\"\") === s, new TextDecoder().decode(b) === s] })()",
		"[240000,true,true]"},
	{"digest chunks",
		"(() => { const a = new Uint8Array((1 << 20) + 12345); for (let i = 0; i < 256; i++) a[i] = i * 31; for (let k = 256; k < a.length; k *= 2) a.copyWithin(k, 0, k); return crypto.subtle.digest(\"SHA-512\", a).then(b => Array.from(new Uint8Array(b), x => x.toString(16).padStart(2, \"0\")).join(\"\")) })()",
		"\"696ab8c2fbedb09096f131c3738a926269ed0b85d66a2e1a2843596f5d9315717cd274b3279ddb5537069669d3445607ea498dfbde34864c0d26d4e3d1c3961b\""},
	{"url long path",
		"(u => [u.pathname.length, u.search.length, u.hash])(new URL(\"http://a/\" + \"é/\".repeat(2000) + \"?\" + \"x y\".repeat(1000) + \"#\" + \"`\".repeat(3)))",
		"[14001,5001,\"#%60%60%60\"]"},
	{"url corpus",
		"[\"http://example.com/foo/%2e%2E/bar\", \"http://example.com/foo/.%2e\", \"http://ex.com/a/%2e/b\", \"http://[::127.0.0.1]\", \"http://[0:0:0:0:0:ffff:1.2.3.4]/\", \"http://[::]/\", \"http://[1::]/\", \"http://[1:2::3:4]/\", \"http://[ffff::1:0:0:0]/\", \"HTTP://EXAMPLE.COM:8080/A?B#C\", \"http://a/?#\", \"http://a/#?\", \"http://a/b;c=d?e;f\", \"http:example.com/\", \"http:/\\\\example.com\", \"https://%e2%98%83.com/\", \"https://\\u2603.com/\", \"http://www.google.com/foo?bar=baz# \\u00bb\", \"http://user:pass@foo:21/bar;par?b#c\", \"http://foo:@example.com\", \"http://:@example.com\", \"http://@example.com\", \"http://a:b@c:d@e/\", \"file:///foo/bar.txt\", \"file:/C|/x\", \"file:\\\\\\\\\\\\\\\\server\\\\\\\\share\\\\\\\\x\", \"file://C:/x\", \"file:///C:/../x\", \"file:///C|/x/../../y\", \"file:..\", \"file:.\", \"file:/.//p\", \"file:?q\", \"file:#f\", \"file://localhost\", \"file://LOCALHOST/x\", \"file://host.:80/\", \"blob:http://x/y\", \"about:blank\", \"view-source:http://a\", \"urn:isbn:0451450523\", \"a:\\t b\", \"sc://x/\", \"sc://x:12/\", \"sc://@/\", \"sc://te@s:t@/\", \"sc://:/\", \"sc://:12/\", \"sc://[/\", \"sc://\\\\\\\\/\", \"sc:\\\\\\\\../\", \"sc::a@example.net\", \"ws://a:80/x\", \"wss://a:443/x\", \"ftp://a:21/\", \"http://1.2.3.4:65535/\", \"http://1.2.3.4:65536/\", \"http://0x100.0/\", \"http://0xffffffff/\", \"http://1.0x2.03/\", \"http://09.1/\", \"http://example.com/\\u0000x\", \"http://ex ample.com/\", \"http://ex%00ample.com/\", \"http://%41.com\", \"http://xn--n3h.com/\", \"http://XN--N3H.com/\", \"http://a.b.c.xn--pokxncvks\", \"http://ab--cd.com/\", \"http://-a.com/\", \"http://a-.com/\", \"http://1.2.3.4.5.6/\", \"http://foo.09\", \"http://foo.0x4\", \"http://foo.1.2\", \"non-spec:/.//\", \"non-spec:/..//\", \"non-spec:/a/..//\", \"non-spec:/.//p\", \"http://example.com/\\ud83d\\ude00/\\ud800\", \"http://[1:2:3:4:5:6:1.2.3.4]/\", \"http://[1:2:3:4:5:6:7:1.2.3.4]/\", \"http://[::1.2.3.4x]/\", \"http://a/?x=\\u00e9&y=%zz\", \"http://a/%\"].map(s => { try { const u = new URL(s); return [u.href, u.origin, u.host] } catch (e) { return e.message } })",
		"[[\"http://example.com/bar\",\"http://example.com\",\"example.com\"],[\"http://example.com/\",\"http://example.com\",\"example.com\"],[\"http://ex.com/a/b\",\"http://ex.com\",\"ex.com\"],[\"http://[::7f00:1]/\",\"http://[::7f00:1]\",\"[::7f00:1]\"],[\"http://[::ffff:102:304]/\",\"http://[::ffff:102:304]\",\"[::ffff:102:304]\"],[\"http://[::]/\",\"http://[::]\",\"[::]\"],[\"http://[1::]/\",\"http://[1::]\",\"[1::]\"],[\"http://[1:2::3:4]/\",\"http://[1:2::3:4]\",\"[1:2::3:4]\"],[\"http://[ffff::1:0:0:0]/\",\"http://[ffff::1:0:0:0]\",\"[ffff::1:0:0:0]\"],[\"http://example.com:8080/A?B#C\",\"http://example.com:8080\",\"example.com:8080\"],[\"http://a/?#\",\"http://a\",\"a\"],[\"http://a/#?\",\"http://a\",\"a\"],[\"http://a/b;c=d?e;f\",\"http://a\",\"a\"],[\"http://example.com/\",\"http://example.com\",\"example.com\"],[\"http://example.com/\",\"http://example.com\",\"example.com\"],[\"https://xn--n3h.com/\",\"https://xn--n3h.com\",\"xn--n3h.com\"],[\"https://xn--n3h.com/\",\"https://xn--n3h.com\",\"xn--n3h.com\"],[\"http://www.google.com/foo?bar=baz#%20%C2%BB\",\"http://www.google.com\",\"www.google.com\"],[\"http://user:pass@foo:21/bar;par?b#c\",\"http://foo:21\",\"foo:21\"],[\"http://foo@example.com/\",\"http://example.com\",\"example.com\"],[\"http://example.com/\",\"http://example.com\",\"example.com\"],[\"http://example.com/\",\"http://example.com\",\"example.com\"],[\"http://a:b%40c%3Ad@e/\",\"http://e\",\"e\"],[\"file:///foo/bar.txt\",\"null\",\"\"],[\"file:///C:/x\",\"null\",\"\"],[\"file:////server//share//x\",\"null\",\"\"],[\"file:///C:/x\",\"null\",\"\"],[\"file:///C:/x\",\"null\",\"\"],[\"file:///C:/y\",\"null\",\"\"],[\"file:///\",\"null\",\"\"],[\"file:///\",\"null\",\"\"],[\"file:////p\",\"null\",\"\"],[\"file:///?q\",\"null\",\"\"],[\"file:///#f\",\"null\",\"\"],[\"file:///\",\"null\",\"\"],[\"file:///x\",\"null\",\"\"],\"Invalid URL\",[\"blob:http://x/y\",\"http://x\",\"\"],[\"about:blank\",\"null\",\"\"],[\"view-source:http://a\",\"null\",\"\"],[\"urn:isbn:0451450523\",\"null\",\"\"],[\"a: b\",\"null\",\"\"],[\"sc://x/\",\"null\",\"x\"],[\"sc://x:12/\",\"null\",\"x:12\"],\"Invalid URL\",\"Invalid URL\",\"Invalid URL\",\"Invalid URL\",\"Invalid URL\",\"Invalid URL\",[\"sc:\\\\\\\\../\",\"null\",\"\"],[\"sc::a@example.net\",\"null\",\"\"],[\"ws://a/x\",\"ws://a\",\"a\"],[\"wss://a/x\",\"wss://a\",\"a\"],[\"ftp://a/\",\"ftp://a\",\"a\"],[\"http://1.2.3.4:65535/\",\"http://1.2.3.4:65535\",\"1.2.3.4:65535\"],\"Invalid URL\",\"Invalid URL\",[\"http://255.255.255.255/\",\"http://255.255.255.255\",\"255.255.255.255\"],[\"http://1.2.0.3/\",\"http://1.2.0.3\",\"1.2.0.3\"],\"Invalid URL\",[\"http://example.com/%00x\",\"http://example.com\",\"example.com\"],\"Invalid URL\",\"Invalid URL\",[\"http://a.com/\",\"http://a.com\",\"a.com\"],[\"http://xn--n3h.com/\",\"http://xn--n3h.com\",\"xn--n3h.com\"],[\"http://xn--n3h.com/\",\"http://xn--n3h.com\",\"xn--n3h.com\"],\"Invalid URL\",[\"http://ab--cd.com/\",\"http://ab--cd.com\",\"ab--cd.com\"],[\"http://-a.com/\",\"http://-a.com\",\"-a.com\"],[\"http://a-.com/\",\"http://a-.com\",\"a-.com\"],\"Invalid URL\",\"Invalid URL\",\"Invalid URL\",\"Invalid URL\",[\"non-spec:/.//\",\"null\",\"\"],[\"non-spec:/.//\",\"null\",\"\"],[\"non-spec:/.//\",\"null\",\"\"],[\"non-spec:/.//p\",\"null\",\"\"],[\"http://example.com/%F0%9F%98%80/%EF%BF%BD\",\"http://example.com\",\"example.com\"],[\"http://[1:2:3:4:5:6:102:304]/\",\"http://[1:2:3:4:5:6:102:304]\",\"[1:2:3:4:5:6:102:304]\"],\"Invalid URL\",\"Invalid URL\",[\"http://a/?x=%C3%A9&y=%zz\",\"http://a\",\"a\"],[\"http://a/%\",\"http://a\",\"a\"]]"},
	{"custom event",
		"(() => { const t = new EventTarget(), r = []; t.addEventListener(\"c\", e => r.push(e.detail, e instanceof Event, String(e))); t.dispatchEvent(new CustomEvent(\"c\", {detail: {a: 1}})); let err; try { new CustomEvent() } catch (e) { err = [e.message, e.code] } return [r, new CustomEvent(\"y\").detail, err] })()",
		"[[{\"a\":1},true,\"[object CustomEvent]\"],null,[\"The \\\"type\\\" argument must be specified\",\"ERR_MISSING_ARGS\"]]"},
}

// webHarness is the script body that runs webCases: the same text under
// airlock (as a body) and under node (inside an async function).
func webHarness() string {
	var b strings.Builder
	b.WriteString("const cases = [\n")
	for _, c := range webCases {
		name, _ := json.Marshal(c.name)
		b.WriteString("[" + string(name) + ", async () => (" + c.expr + ")],\n")
	}
	b.WriteString(`];
const enc = (v) => JSON.parse(JSON.stringify(v === undefined ? "<undefined>" : v, (k, x) => x === undefined ? "<undefined>" :
  typeof x === "bigint" ? x + "n" : x instanceof Error || x instanceof DOMException ? "<" + x.name + ": " + x.message + ">" : x));
const out = {};
for (const [k, f] of cases) { try { out[k] = enc(await f()); } catch (e) { out[k] = "throws " + (e && e.name) + ": " + (e && e.message); } }
return out;`)
	return b.String()
}

func checkWebResults(t *testing.T, got map[string]json.RawMessage) {
	t.Helper()
	for _, c := range webCases {
		t.Run(c.name, func(t *testing.T) {
			v, ok := got[c.name]
			require.True(t, ok, "no result for %s", c.name)
			require.JSONEq(t, c.want, string(v), c.expr)
		})
	}
}

func TestWebAPIs(t *testing.T) {
	res, err := run(t, webHarness(), nil, Limits{})
	require.NoError(t, err)
	var got map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(res.Value, &got))
	checkWebResults(t, got)
}

// TestWebAPIsMatchNode runs webCases under node, so that the expected
// values stay Node's. Without node it is skipped, except under CI=true.
func TestWebAPIsMatchNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not installed; CI must have it (the Web API cases are checked against Node 20)")
		}
		t.Skip("node is not installed")
	}
	file := filepath.Join(t.TempDir(), "web.js")
	src := "(async () => {\n" + webHarness() + "\n})().then((o) => console.log(JSON.stringify(o)), (e) => { console.error(e); process.exit(1); });\n"
	require.NoError(t, os.WriteFile(file, []byte(src), 0o600))
	cmd := exec.Command(node, file)
	cmd.Env = append(os.Environ(), "TZ=UTC")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	var got map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(out, &got))
	checkWebResults(t, got)
}

// TestWebHostile feeds the Web APIs inputs far past what scripts use: each
// either gives the exact result or a clear JavaScript error, in time and
// guest memory linear in the input, and the host copies at most a bounded
// chunk per operation (webops.go).
func TestWebHostile(t *testing.T) {
	// 3 MiB + 5 bytes, byte i = i mod 256: three full digest chunks and a
	// short one.
	data := make([]byte, 3<<20+5)
	for i := range data {
		data[i] = byte(i)
	}
	sum := sha256.Sum256(data)
	tests := []struct {
		name, src, want string
	}{
		{name: "base64 round trip of 192 KiB",
			src:  `const s = "xyz".repeat(1 << 16); const b = btoa(s); return [b.length, atob(b) === s]`,
			want: `[262144, true]`},
		{name: "atob rejects a bad character at the end of 1 MiB",
			src:  `try { atob("QUJD".repeat(1 << 18) + "$") } catch (e) { return [e.name, e.message] }`,
			want: `["InvalidCharacterError", "Invalid character"]`},
		{name: "TextDecoder of 2 MiB",
			src:  `const s = new TextDecoder().decode(new Uint8Array(2 << 20).fill(0x61)); return [s.length, s.slice(-2)]`,
			want: `[2097152, "aa"]`},
		{name: "TextDecoder of 256 KiB of invalid bytes",
			src:  `const s = new TextDecoder().decode(new Uint8Array(1 << 18).fill(0xff)); return [s.length, s.charCodeAt(5)]`,
			want: `[262144, 65533]`},
		{name: "digest of 3 MiB in chunks",
			src: `const a = new Uint8Array((3 << 20) + 5); for (let i = 0; i < 256; i++) a[i] = i;
for (let k = 256; k < a.length; k *= 2) a.copyWithin(k, 0, k);
const d = await crypto.subtle.digest("SHA-256", a); return Array.from(new Uint8Array(d), (x) => x.toString(16).padStart(2, "0")).join("")`,
			want: `"` + hex.EncodeToString(sum[:]) + `"`},
		{name: "getRandomValues past the quota",
			src:  `try { crypto.getRandomValues(new Uint8Array(1 << 24)) } catch (e) { return [e.name, e.message] }`,
			want: `["QuotaExceededError", "The requested length exceeds 65,536 bytes"]`},
		{name: "structuredClone of a 20000-deep object",
			src:  `let d = {}; for (let i = 0; i < 20000; i++) d = {d}; let c = structuredClone(d), n = 0; while (c.d) { c = c.d; n++ } return n`,
			want: `20000`},
		{name: "structuredClone of a 10000-element cycle",
			src: `const head = {}; let p = head; for (let i = 0; i < 10000; i++) p = p.next = {i}; p.next = head;
const c = structuredClone(head); let q = c, n = 0; do { q = q.next; n++ } while (q !== c && n < 20000); return [n, c !== head]`,
			want: `[10001, true]`},
		{name: "URL with a 1 MiB ASCII host",
			src:  `return new URL("http://" + "a".repeat(1 << 20) + "/").href.length`,
			want: `1048584`},
		{name: "URL with a 1 MiB non-ASCII host",
			src:  `try { new URL("http://" + "é".repeat(1 << 20) + "/") } catch (e) { return [e.name, e.message, e.code] }`,
			want: `["TypeError", "Invalid URL", "ERR_INVALID_URL"]`},
		{name: "URL with a label of 20000 distinct code points",
			src:  `try { new URL("http://" + Array.from({length: 20000}, (_, i) => String.fromCodePoint(0x4e00 + i)).join("") + "/") } catch (e) { return e.message }`,
			want: `"Invalid URL"`},
		{name: "URL with 1 MiB of spaces inside",
			src:  `try { new URL("http://a" + " ".repeat(1 << 20) + "b/") } catch (e) { return e.message }`,
			want: `"Invalid URL"`},
		{name: "URL with a 1 MiB scheme",
			src:  `return new URL("a".repeat(1 << 20) + "://x/y").href.length`,
			want: `1048582`},
		{name: "URL with 16384 credentials",
			src:  `const u = new URL("http://" + "a:b@".repeat(1 << 14) + "h/"); return [u.username, u.password.length, u.host]`,
			want: `["a", 131065, "h"]`},
		{name: "URL with 65536 empty path segments",
			src:  `return new URL("http://h/" + "/".repeat(1 << 16)).pathname.length`,
			want: `65537`},
		{name: "URLSearchParams of 20000 pairs",
			src:  `const p = new URLSearchParams("a=1&".repeat(20000)); return [p.size, p.toString().length]`,
			want: `[20000, 79999]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := run(t, tt.src, nil, Limits{})
			require.NoError(t, err)
			require.JSONEq(t, tt.want, string(res.Value))
		})
	}
}

// TestWebRandomSource checks that OpRandom reads the run's cryptoRand, and
// crypto/rand when it is nil.
func TestWebRandomSource(t *testing.T) {
	r := &scriptRun{cryptoRand: bytes.NewReader([]byte{1, 2, 3, 4, 5})}
	b, err := r.random(4)
	require.NoError(t, err)
	require.Equal(t, []byte{1, 2, 3, 4}, b)
	_, err = r.random(4) // one byte left
	require.Error(t, err)
	b, err = (&scriptRun{}).random(64)
	require.NoError(t, err)
	require.Len(t, b, 64)
	require.NotEqual(t, make([]byte, 64), b)
}

// TestWebByteStrings checks the byte-string encoding both ways, NUL and
// high bytes included, and that decodeByteString refuses anything else.
func TestWebByteStrings(t *testing.T) {
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	enc := appendByteString(nil, all)
	require.NotContains(t, string(enc), "\x00")
	dec, ok := decodeByteString(enc)
	require.True(t, ok)
	require.Equal(t, all, dec)
	for _, bad := range []string{"\xc4\x81", "\xe2\x82\xac", "\xc3", "\xff"} {
		_, ok := decodeByteString([]byte(bad))
		require.False(t, ok, "%q", bad)
	}
}

// TestWebListenerErrorFailsRun: an exception in an event listener does not
// stop the dispatch, and then fails the run with that error, as it ends a
// Node process.
func TestWebListenerErrorFailsRun(t *testing.T) {
	_, err := run(t, `const t = new EventTarget(), seen = [];
t.addEventListener("x", () => { throw new RangeError("boom"); });
t.addEventListener("x", () => seen.push(2));
const r = t.dispatchEvent(new Event("x"));
seen.push(r);
await null;
return seen;`, nil, Limits{})
	var xe *ExitError
	require.ErrorAs(t, err, &xe)
	require.Equal(t, ScriptError, xe.Kind)
	require.Equal(t, "RangeError: boom", xe.Message)
}

// TestWebReplacedBuiltins: a script that replaces escape or a typed array's
// length getter gets correct crypto (hostile review), not a broken protocol.
func TestWebReplacedBuiltins(t *testing.T) {
	res, err := run(t, `globalThis.escape = () => "%ZZ";
		const d = new Uint8Array(await crypto.subtle.digest("SHA-256", new Uint8Array(4)))[0];
		let k = 0;
		class X extends Uint8Array { get byteLength() { return k++ ? 70000 : 10 } }
		const x = crypto.getRandomValues(new X(10));
		return [d, x.length, x.some((v) => v !== 0)];`, nil, Limits{})
	require.NoError(t, err)
	require.JSONEq(t, `[223, 10, true]`, string(res.Value))
}
