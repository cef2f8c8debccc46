"""Tests of code_mode_tool and async_code_mode_tool against the stub."""

from __future__ import annotations

import asyncio
import json
import unittest

from airlock_client import Airlock, AsyncAirlock, Tool, async_code_mode_tool, code_mode_tool
from airlock_client.codemode import INPUT_SCHEMA

from .stub import Stub, call_doc, chain_doc, error_reply, json_reply, raw_reply, sse, sse_reply

DTS = "declare const tools: {\n  lookup(args: {email: string}): Promise<unknown>;\n};"


class CodeModeTest(unittest.TestCase):
    def setUp(self) -> None:
        self.stub = Stub()
        self.addCleanup(lambda: self.assertEqual(self.stub.errors, []))
        self.addCleanup(self.stub.close)
        self.stub.routes[("POST", "/v1/tools.d.ts")] = lambda r: raw_reply(200, DTS.encode(), "text/plain")
        self.stub.routes[("POST", "/v1/chains")] = lambda r: json_reply(202, chain_doc())
        self.stub.routes[("GET", "/v1/chains/ch_1/events")] = lambda r: sse_reply(
            sse("call_pending", call_doc("c1", 1, "lookup", {"email": "a@example.com"}), 1), 0.3,
            sse("done", chain_doc(status="ok", value={"id": 7}, logs=[{"level": "info", "text": "hi"}]), 2))
        self.stub.routes[("POST", "/v1/calls/c1")] = lambda r: json_reply(200, {"call": call_doc("c1", 1, "lookup", {}),
                                                                                "answered": "x"})
        self.lookup = Tool("lookup", lambda a: {"id": 7}, description="Find a customer.", input_schema={
            "type": "object", "properties": {"email": {"type": "string"}}})

    def check_shapes(self, make):
        o = make("openai")
        self.assertEqual(set(o), {"type", "function"})
        self.assertEqual(o["type"], "function")
        self.assertEqual(set(o["function"]), {"name", "description", "parameters"})
        self.assertEqual(o["function"]["parameters"], INPUT_SCHEMA)
        self.assertIn(DTS, o["function"]["description"])
        a = make("anthropic")
        self.assertEqual(set(a), {"name", "description", "input_schema"})
        self.assertIn(DTS, a["description"])
        g = make("generic")
        self.assertEqual(set(g), {"name", "description", "input_schema", "execute"})
        self.assertIs(g["execute"], g.execute)
        # The API shapes are plain JSON.
        json.dumps(o)
        json.dumps(a)
        with self.assertRaises(ValueError):
            make("gemini")
        body = self.stub.seen("POST", "/v1/tools.d.ts")[0].body
        self.assertEqual(body, {"tools": ["demo"], "caller_tools": [self.lookup.declaration()]})
        return o

    def test_sync(self):
        c = Airlock(self.stub.url, "k")
        t = self.check_shapes(lambda f: code_mode_tool(c, [self.lookup], f, server_tools=["demo"]))
        out = t.execute(json.dumps({"script": "return await tools.lookup({email: 'a@example.com'})"}))
        self.assertEqual(out, {"ok": True, "value": {"id": 7}, "logs": [{"level": "info", "text": "hi"}]})
        self.assertEqual(json.loads(t.call({"script": "return 1"})), out)
        self.assertEqual(self.stub.seen("POST", "/v1/calls/c1")[0].body, {"args_hash": "h-c1", "result": {"id": 7}})
        sub = self.stub.seen("POST", "/v1/chains")[0].body
        self.assertEqual((sub["tools"], sub["caller_tools"][0]["name"]), (["demo"], "lookup"))

    def test_async(self):
        c = AsyncAirlock(self.stub.url, "k")
        t = self.check_shapes(lambda f: asyncio.run(async_code_mode_tool(c, [self.lookup], f, server_tools=["demo"])))
        out = asyncio.run(t.execute({"script": "return 1"}))
        self.assertEqual(out["value"], {"id": 7})
        self.assertEqual(json.loads(asyncio.run(t.call('{"script": "return 1"}'))), out)

    def test_refusals_come_back_as_values(self):
        self.stub.routes[("POST", "/v1/chains")] = lambda r: error_reply(400, "invalid_script", "SyntaxError: x",
                                                                          line=2, column=4)
        t = code_mode_tool(Airlock(self.stub.url, "k"), [self.lookup])
        self.assertEqual(t.execute({"script": "return (;"}),
                         {"ok": False, "reason": "invalid_script", "error": "SyntaxError: x", "line": 2,
                          "column": 4, "logs": []})
        self.stub.routes[("POST", "/v1/chains")] = lambda r: json_reply(202, chain_doc())
        self.stub.routes[("GET", "/v1/chains/ch_1/events")] = lambda r: sse_reply(sse("done", chain_doc(
            status="error", reason="script_error", error="Error: boom", line=1, column=7), 1))
        self.assertEqual(t.execute({"script": "throw new Error('boom')"}),
                         {"ok": False, "reason": "script_error", "error": "Error: boom", "line": 1, "column": 7,
                          "logs": []})

    def test_bad_arguments(self):
        t = code_mode_tool(Airlock(self.stub.url, "k"))
        for bad in ["{not json", {"code": "x"}, {"script": 1}, "[1]"]:
            out = t.execute(bad)
            self.assertEqual((out["ok"], out["reason"]), (False, "invalid_request"), bad)
        self.assertEqual(self.stub.seen("POST", "/v1/chains"), [])


if __name__ == "__main__":
    unittest.main()
