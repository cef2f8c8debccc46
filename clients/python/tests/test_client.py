"""Tests of both clients against the stub server: every request's shape,
every refusal by its reason code, every bad answer refused as
unexpected_response, streams, and run/wait answering calls and approvals.

ContractTests runs twice: with Airlock (SyncTest) and with AsyncAirlock
through a facade that runs each coroutine in its own event loop
(AsyncTest). Behaviour that only one of them has is tested in its class.
"""

from __future__ import annotations

import asyncio
import io
import json
import socket
import threading
import time
import unittest
from typing import Any

from airlock_client import (CLIENT_CANCELLED, CLIENT_TIMEOUT, NETWORK_ERROR, UNEXPECTED_RESPONSE, WAIT_TIMEOUT, Airlock,
                            AirlockError, AsyncAirlock, ChainError, CredentialRequest, Identity, Tool, current_call,
                            tool)

from .stub import (DROP, Reply, Stub, approval_doc, call_doc, chain_doc, error_reply, json_reply, raw_reply, sse,
                   sse_reply)

KEY = "stub-key-0123456789"
# Tokens of the identity tests: no error text or repr may hold them.
TOKEN, ACTOR, FRESH = "subj~user-token-0123456789", "actor~agent-token-0123456789", "subj~fresh-token-0123456789"


def credential_doc(seq: int, parked: bool = False, reason: str = "credential_expired") -> Any:
    d = {"seq": seq, "tool": "crm_lookup", "audience": "crm", "reason": reason}
    if parked:
        d["parked"] = True
    return d


def T(name: Any, fn: Any) -> Tool:
    """T is a caller tool for tests."""
    return Tool(name, fn, description="A tool of the tests.")


class AsyncFacade:
    """AsyncFacade calls an AsyncAirlock as if it were an Airlock: each
    coroutine runs to its end in a fresh event loop."""

    def __init__(self, client: AsyncAirlock) -> None:
        self.client = client

    def __getattr__(self, name: str) -> Any:
        fn = getattr(self.client, name)
        if name == "events":
            def events(*a: Any, **k: Any) -> Any:
                async def collect() -> Any:
                    return [ev async for ev in fn(*a, **k)]
                return iter(asyncio.run(collect()))
            return events
        if not asyncio.iscoroutinefunction(fn):
            return fn

        def call(*a: Any, **k: Any) -> Any:
            return asyncio.run(fn(*a, **k))
        return call


class ContractTests:
    """The tests both clients pass; subclasses set make()."""

    def make(self, url: str, key: str | None = KEY, **kw: Any) -> Any:
        raise NotImplementedError

    def setUp(self) -> None:
        self.stub = Stub()
        self.addCleanup(lambda: self.assertEqual(self.stub.errors, []))
        self.addCleanup(self.stub.close)
        self.c = self.make(self.stub.url)

    def refused(self, fn: Any, *a: Any, **k: Any) -> AirlockError:
        with self.assertRaises(AirlockError) as cm:
            fn(*a, **k)
        return cm.exception

    # -- requests ---------------------------------------------------------

    def test_submit_sends_the_body_and_key(self):
        self.stub.routes[("POST", "/v1/chains")] = lambda r: json_reply(202, chain_doc())
        t = Tool("lookup", lambda a: a, description="Find.", input_schema={"type": "object"},
                 output_schema={"type": "object"}, risk="LOW", scopes=["crm:read"])
        ch = self.c.submit("return 1", tools=[t], language="typescript", server_tools=["demo"],
                           policy={"call_timeout": "5s"}, limits={"timeout": "10s"}, guest={"seed": 1})
        self.assertEqual(ch.id, "ch_1")
        self.assertEqual(ch.status, "running")
        r = self.stub.seen("POST", "/v1/chains")[0]
        self.assertEqual(r.query, {"async": ["1"]})
        self.assertEqual(r.header("Authorization"), "Bearer " + KEY)
        self.assertEqual(r.header("Content-Type"), "application/json")
        self.assertEqual(r.body, {
            "script": "return 1", "language": "typescript", "tools": ["demo"],
            "caller_tools": [{"name": "lookup", "description": "Find.", "input_schema": {"type": "object"},
                              "output_schema": {"type": "object"}, "risk": "LOW", "scopes": ["crm:read"]}],
            "policy": {"call_timeout": "5s"}, "limits": {"timeout": "10s"}, "guest": {"seed": 1}})

    def test_no_key_sends_no_authorization(self):
        c = self.make(self.stub.url, None)
        self.stub.routes[("GET", "/v1/approvals")] = lambda r: json_reply(200, {"approvals": []})
        self.assertEqual(c.approvals(), [])
        self.assertIsNone(self.stub.requests[0].header("Authorization"))

    def test_ids_are_escaped(self):
        self.stub.routes[("GET", "/v1/calls/a/../b?x")] = lambda r: json_reply(200, call_doc("a/../b?x", 1, "t", {}))
        self.assertEqual(self.c.call("a/../b?x").id, "a/../b?x")
        self.assertEqual(self.stub.requests[0].headers[":raw-path"], "/v1/calls/a%2F..%2Fb%3Fx")

    def test_base_url_prefix(self):
        c = self.make(self.stub.url + "/airlock/")
        self.stub.routes[("GET", "/airlock/v1/chains/ch_1")] = lambda r: json_reply(200, chain_doc())
        self.assertEqual(c.chain("ch_1").id, "ch_1")

    def test_answer_and_decide_bodies(self):
        self.stub.routes[("POST", "/v1/calls/c1")] = lambda r: json_reply(
            200, {"call": {k: v for k, v in call_doc("c1", 1, "t", {}).items() if k != "args"},
                  "answered": "2026-11-27T21:00:02Z"})
        self.stub.routes[("POST", "/v1/approvals/a1")] = lambda r: json_reply(
            200, {"request": approval_doc("a1"), "decision": "approved", "decided": "2026-11-27T21:00:02Z"})
        a = self.c.answer("c1", {"n": 1}, args_hash="h1")
        self.assertEqual(a.call.id, "c1")
        self.assertEqual(a.answered, "2026-11-27T21:00:02Z")
        self.c.answer("c1", error="no such customer", args_hash="h1")
        d = self.c.decide("a1", True, args_hash="ah1")
        self.assertEqual(d.decision, "approved")
        self.c.decide(approval_doc_obj(), "deny")
        bodies = [r.body for r in self.stub.requests]
        self.assertEqual(bodies, [{"args_hash": "h1", "result": {"n": 1}},
                                  {"args_hash": "h1", "error": "no such customer"},
                                  {"decision": "approve", "args_hash": "ah1"},
                                  {"decision": "deny", "args_hash": "ah-a1"}])
        self.assertEqual(self.stub.requests[3].path, "/v1/approvals/a1")

    def test_answer_needs_exactly_one_of_result_and_error(self):
        with self.assertRaises(ValueError):
            self.c.answer("c1", args_hash="h")
        with self.assertRaises(ValueError):
            self.c.answer("c1", 1, error="x", args_hash="h")
        with self.assertRaises(ValueError):
            self.c.answer("c1", 1)  # an id needs its args_hash
        self.assertEqual(self.stub.requests, [])

    def test_answer_null_result_is_sent(self):
        self.stub.routes[("POST", "/v1/calls/c1")] = lambda r: json_reply(
            200, {"call": call_doc("c1", 1, "t", {}), "answered": "x"})
        self.c.answer("c1", None, args_hash="h")
        self.assertEqual(self.stub.requests[0].body, {"args_hash": "h", "result": None})

    def test_lists(self):
        self.stub.routes[("GET", "/v1/calls")] = lambda r: json_reply(200, {"calls": [call_doc("c1", 1, "t", {"a": 1})]})
        self.stub.routes[("GET", "/v1/chains/ch_1/calls")] = lambda r: json_reply(200, {"calls": []})
        self.stub.routes[("GET", "/v1/chains")] = lambda r: json_reply(200, {"chains": [
            {"id": "ch_1", "status": "parked", "language": "javascript", "created": "x", "pending": 2}]})
        self.stub.routes[("GET", "/v1/approvals/a1")] = lambda r: json_reply(200, approval_doc("a1", args={"x": 1}))
        calls = self.c.calls()
        self.assertEqual((calls[0].id, calls[0].args, calls[0].args_hash), ("c1", {"a": 1}, "h-c1"))
        self.assertEqual(self.c.calls("ch_1"), [])
        s = self.c.chains("parked")
        self.assertEqual((s[0].id, s[0].status, s[0].pending), ("ch_1", "parked", 2))
        self.assertEqual(self.stub.seen("GET", "/v1/chains")[0].query, {"status": ["parked"]})
        a = self.c.approval("a1")
        self.assertEqual((a.args, a.chain_id, a.has_args), ({"x": 1}, "ch_1", True))

    def test_cancel_accepts_200_and_202(self):
        for code in (200, 202):
            self.stub.routes[("DELETE", "/v1/chains/ch_1")] = lambda r, code=code: json_reply(
                code, chain_doc(status="cancelled" if code == 200 else "running"))
            self.assertEqual(self.c.cancel("ch_1").id, "ch_1")

    def test_declarations(self):
        self.stub.routes[("POST", "/v1/tools.d.ts")] = lambda r: raw_reply(
            200, b"declare const tools: { lookup(args: {}): Promise<unknown> };", "text/plain; charset=utf-8")
        t = T("lookup", lambda a: a)
        d = self.c.declarations(tools=[t], server_tools=["demo"])
        self.assertIn("lookup(args", d)
        self.assertEqual(self.stub.requests[0].body, {"tools": ["demo"], "caller_tools": [t.declaration()]})

    def test_artifact(self):
        blob = bytes(range(256)) * 1000
        self.stub.routes[("GET", "/v1/artifacts/ar_1")] = lambda r: raw_reply(200, blob, "application/octet-stream")
        self.assertEqual(self.c.artifact("ar_1"), blob)
        out = io.BytesIO()
        self.assertEqual(self.c.artifact("ar_1", out), len(blob))
        self.assertEqual(out.getvalue(), blob)
        self.assertEqual(self.stub.requests[0].header("Accept"), "*/*")

    # -- refusals ---------------------------------------------------------

    def test_every_answer_refusal_keeps_its_reason(self):
        for status, reason in [(400, "invalid_request"), (404, "call_not_found"), (409, "args_mismatch"),
                               (409, "already_answered"), (410, "call_expired"), (413, "result_too_large"),
                               (422, "output_schema_mismatch"), (401, "unauthenticated"),
                               (403, "forbidden_role")]:
            self.stub.routes[("POST", "/v1/calls/c1")] = lambda r, s=status, n=reason: error_reply(s, n, "because")
            e = self.refused(self.c.answer, "c1", 1, args_hash="h")
            self.assertEqual((e.status, e.reason, e.message), (status, reason, "because"))

    def test_every_decision_refusal_keeps_its_reason(self):
        for status, reason in [(409, "args_mismatch"), (410, "approval_expired"), (404, "approval_not_found"),
                               (403, "forbidden_role")]:
            self.stub.routes[("POST", "/v1/approvals/a1")] = lambda r, s=status, n=reason: error_reply(s, n)
            e = self.refused(self.c.decide, "a1", False, args_hash="h")
            self.assertEqual((e.status, e.reason), (status, reason))
        self.stub.routes[("POST", "/v1/approvals/a1")] = lambda r: error_reply(409, "already_decided",
                                                                                decision="approved")
        e = self.refused(self.c.decide, "a1", True, args_hash="h")
        self.assertEqual((e.reason, e.body["decision"]), ("already_decided", "approved"))

    def test_invalid_script_has_line_and_column(self):
        self.stub.routes[("POST", "/v1/chains")] = lambda r: error_reply(400, "invalid_script", "SyntaxError",
                                                                          line=3, column=5)
        e = self.refused(self.c.submit, "return (;")
        self.assertEqual((e.status, e.reason, e.line, e.column), (400, "invalid_script", 3, 5))

    def test_bad_answers_are_unexpected_response(self):
        cases = [
            ("html error page", raw_reply(502, b"<html>bad gateway</html>"), 502),
            ("error without reason", json_reply(500, {"error": {"message": "x"}}), 500),
            ("not json", raw_reply(200, b"{not json", "application/json"), 200),
            ("not utf-8", raw_reply(200, b'{"id": "\xff"}', "application/json"), 200),
            ("other content type", raw_reply(200, json.dumps(chain_doc()).encode(), "text/plain"), 200),
            ("a list", json_reply(200, [chain_doc()]), None),
            ("no id", json_reply(200, {"status": "ok"}), None),
            ("status not a string", json_reply(200, {"id": "ch_1", "status": 1}), None),
            ("result not an object", json_reply(200, dict(chain_doc(), result=[1])), None),
            ("trace not an array", json_reply(200, chain_doc(status="ok", trace={"seq": 1})), None),
            ("trace record without tool", json_reply(200, chain_doc(status="ok", trace=[{"seq": 1, "status": "ok"}])),
             None),
            ("unexpected success status", json_reply(201, chain_doc()), 201),
            ("nested deeper than Python recurses", raw_reply(200, b"[" * 200000 + b"]" * 200000,
                                                             "application/json"), 200),
            ("error nested too deep", raw_reply(500, b'{"error": ' + b"[" * 200000 + b"]" * 200000 + b"}",
                                                "application/json"), 500),
            ("redirect", Reply(302, "text/html", b"elsewhere"), 302),
        ]
        for name, reply, status in cases:
            with self.subTest(name):
                self.stub.routes[("GET", "/v1/chains/ch_1")] = lambda r, reply=reply: reply
                e = self.refused(self.c.chain, "ch_1")
                self.assertEqual(e.reason, UNEXPECTED_RESPONSE, e)
                self.assertEqual(e.status, status)

    def test_list_without_its_array_is_unexpected_response(self):
        self.stub.routes[("GET", "/v1/calls")] = lambda r: json_reply(200, {"pending": []})
        self.assertEqual(self.refused(self.c.calls).reason, UNEXPECTED_RESPONSE)
        self.stub.routes[("GET", "/v1/calls")] = lambda r: json_reply(200, {"calls": [{"id": "c1"}]})
        self.assertEqual(self.refused(self.c.calls).reason, UNEXPECTED_RESPONSE)

    def test_body_that_ends_with_the_connection(self):
        body = json.dumps(chain_doc(status="ok", value="v" * 100000)).encode()
        self.stub.routes[("GET", "/v1/chains/ch_1")] = lambda r: Reply(200, "application/json", body,
                                                                       until_close=True)
        self.assertEqual(self.c.chain("ch_1").value, "v" * 100000)

    def test_answer_larger_than_the_cap_is_refused(self):
        c = self.make(self.stub.url, max_response_bytes=1000)
        self.stub.routes[("GET", "/v1/chains/ch_1")] = lambda r: json_reply(200, chain_doc(status="ok",
                                                                                           value="x" * 2000))
        e = self.refused(c.chain, "ch_1")
        self.assertEqual((e.reason, e.status), (UNEXPECTED_RESPONSE, 200))

    def test_unreachable_server_is_network_error(self):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        c = self.make("http://127.0.0.1:%d" % port)
        e = self.refused(c.chain, "ch_1")
        self.assertEqual((e.reason, e.status), (NETWORK_ERROR, None))

    def test_silent_server_is_network_error(self):
        c = self.make(self.stub.url, timeout=0.3)
        self.stub.routes[("GET", "/v1/chains/ch_1")] = lambda r: Reply(
            200, "application/json", json.dumps(chain_doc()).encode(), hang=2.0)
        t = time.monotonic()
        e = self.refused(c.chain, "ch_1")
        self.assertEqual(e.reason, NETWORK_ERROR)
        self.assertLess(time.monotonic() - t, 1.5)

    # -- streams ----------------------------------------------------------

    def test_events_until_done(self):
        done = chain_doc(status="ok", value=7)
        self.stub.routes[("GET", "/v1/chains/ch_1/events")] = lambda r: sse_reply(
            b": chain ch_1\n\n", sse("tool_call", {"tool": "a", "risk": "SAFE"}, 1), b": keep-alive\n\n",
            sse("done", done, 2), sse("log", {"never": "read"}, 3))
        evs = list(self.c.events("ch_1"))
        self.assertEqual([(e.name, e.id) for e in evs], [("tool_call", "1"), ("done", "2")])
        self.assertEqual(evs[1].data["result"]["value"], 7)
        self.assertEqual(self.stub.requests[0].header("Accept"), "text/event-stream")

    def test_events_reconnect_with_last_event_id(self):
        n = {"i": 0}

        def events(r):
            n["i"] += 1
            if n["i"] == 1:
                self.assertIsNone(r.header("Last-Event-ID"))
                return sse_reply(sse("tool_call", {"tool": "a"}, 1), b"id: 2\nevent: tool_ca", DROP)
            self.assertEqual(r.header("Last-Event-ID"), "1")
            return sse_reply(sse("tool_call", {"tool": "b"}, 2), sse("done", chain_doc(status="ok"), 3))

        self.stub.routes[("GET", "/v1/chains/ch_1/events")] = events
        evs = list(self.c.events("ch_1"))
        self.assertEqual([(e.name, e.id) for e in evs], [("tool_call", "1"), ("tool_call", "2"), ("done", "3")])

    def test_events_resume_after_given_id(self):
        self.stub.routes[("GET", "/v1/chains/ch_1/events")] = lambda r: sse_reply(sse("done", chain_doc(status="ok"), 5))
        list(self.c.events("ch_1", last_event_id="4"))
        self.assertEqual(self.stub.requests[0].header("Last-Event-ID"), "4")

    def test_events_without_reconnect_fail_on_a_break(self):
        self.stub.routes[("GET", "/v1/chains/ch_1/events")] = lambda r: sse_reply(sse("tool_call", {}, 1), DROP)
        e = self.refused(lambda: list(self.c.events("ch_1", reconnect=False)))
        self.assertEqual(e.reason, NETWORK_ERROR)

    def test_events_refusals(self):
        cases = [
            (error_reply(404, "chain_not_found"), "chain_not_found", 404),
            (error_reply(429, "too_many_streams"), "too_many_streams", 429),
            (sse_reply(sse("done", chain_doc(), 1), content_type="text/html"), UNEXPECTED_RESPONSE, 200),
            (sse_reply(b"event: done\ndata: {oops\n\n"), UNEXPECTED_RESPONSE, None),
            (sse_reply(b"event: done\ndata: " + b"x" * 300000 + b"\n\n"), UNEXPECTED_RESPONSE, None),
            (sse_reply(sse("done", {"status": "ok"}, 1)), UNEXPECTED_RESPONSE, None),
            (sse_reply(b"event: done\ndata: " + b"[" * 100000 + b"]" * 100000 + b"\n\n"), UNEXPECTED_RESPONSE,
             None),
        ]
        c = self.make(self.stub.url, max_response_bytes=250000)
        for reply, reason, status in cases:
            with self.subTest(reason=reason, status=status):
                self.stub.routes[("GET", "/v1/chains/ch_1/events")] = lambda r, reply=reply: reply
                e = self.refused(lambda: c.wait("ch_1"))
                self.assertEqual((e.reason, e.status), (reason, status))

    # -- run --------------------------------------------------------------

    def run_stub(self, events, *, answers=None, calls=None, chain=None):
        """run_stub serves a chain ch_1 whose stream is events; answers to
        calls are recorded (and answered by answers(req) if given)."""
        self.stub.routes[("POST", "/v1/chains")] = lambda r: json_reply(202, chain_doc())
        self.stub.routes[("GET", "/v1/chains/ch_1/events")] = lambda r: sse_reply(*events)
        self.stub.routes[("POST", "/v1/calls/*")] = answers or (lambda r: json_reply(
            200, {"call": call_doc(r.path.rsplit("/", 1)[1], 1, "t", {}), "answered": "x"}))
        self.stub.routes[("DELETE", "/v1/chains/ch_1")] = lambda r: json_reply(200, chain_doc(status="cancelled"))
        if calls is not None:
            self.stub.routes[("GET", "/v1/calls/*")] = calls
        if chain is not None:
            self.stub.routes[("GET", "/v1/chains/ch_1")] = chain

    def answers(self):
        return {r.path.rsplit("/", 1)[1]: r.body for r in self.stub.requests
                if r.method == "POST" and r.path.startswith("/v1/calls/")}

    def test_run_answers_two_calls_at_once(self):
        both = threading.Barrier(2, timeout=5)
        answered = threading.Event()

        def answer(r):
            if len(self.answers()) == 2:
                answered.set()
            return json_reply(200, {"call": call_doc(r.path.rsplit("/", 1)[1], 1, "t", {}), "answered": "x"})

        def slow(args):
            both.wait()  # both handlers run at the same time, or this breaks
            return {"echo": args["n"]}

        def failing(args):
            both.wait()
            raise RuntimeError("no customer %s" % args["n"])

        self.run_stub([sse("call_pending", call_doc("c1", 1, "slow", {"n": 1}), 1),
                       sse("call_pending", call_doc("c2", 2, "failing", {"n": 2}), 2),
                       answered, sse("done", chain_doc(status="ok", value=3), 3)], answers=answer)
        seen = []
        ch = self.c.run("return 3", tools=[T("slow", slow), T("failing", failing)], on_event=seen.append)
        self.assertEqual((ch.status, ch.value), ("ok", 3))
        self.assertEqual(self.answers(), {"c1": {"args_hash": "h-c1", "result": {"echo": 1}},
                                          "c2": {"args_hash": "h-c2", "error": "no customer 2"}})
        self.assertEqual([e.name for e in seen], ["call_pending", "call_pending", "done"])
        self.assertEqual([t["name"] for t in self.stub.seen("POST", "/v1/chains")[0].body["caller_tools"]],
                         ["slow", "failing"])

    def test_run_answers_a_refused_result_with_an_error(self):
        first = {}

        def answer(r):
            cid = r.path.rsplit("/", 1)[1]
            if cid not in first:
                first[cid] = r.body
                return error_reply(422 if cid == "c1" else 413,
                                   "output_schema_mismatch" if cid == "c1" else "result_too_large", "bad result")
            return json_reply(200, {"call": call_doc(cid, 1, "t", {}), "answered": "x"})

        self.run_stub([sse("call_pending", call_doc("c1", 1, "t", {}), 1),
                       sse("call_pending", call_doc("c2", 2, "t", {}), 2), 0.5,
                       sse("done", chain_doc(status="ok"), 3)], answers=answer)
        self.c.run("x", tools=[T("t", lambda a: {"x": 1})])
        got = self.answers()
        self.assertEqual(got["c1"], {"args_hash": "h-c1",
                                     "error": "the caller's result was refused (output_schema_mismatch): bad result"})
        self.assertEqual(got["c2"]["error"], "the caller's result was refused (result_too_large): bad result")
        self.assertEqual(first["c1"], {"args_hash": "h-c1", "result": {"x": 1}})

    def test_run_result_that_is_not_json_becomes_an_error(self):
        self.run_stub([sse("call_pending", call_doc("c1", 1, "t", {}), 1), 0.5,
                       sse("done", chain_doc(status="ok"), 2)])
        self.c.run("x", tools=[T("t", lambda a: {"when": object()})])
        self.assertTrue(self.answers()["c1"]["error"].startswith("the caller tool's result is not JSON"))

    def test_run_ignores_settled_calls(self):
        for reason, status in [("call_expired", 410), ("already_answered", 409), ("call_not_found", 404)]:
            with self.subTest(reason):
                self.stub.requests.clear()
                self.run_stub([sse("call_pending", call_doc("c1", 1, "t", {}), 1), 0.3,
                               sse("done", chain_doc(status="error"), 2)],
                              answers=lambda r, s=status, n=reason: error_reply(s, n))
                with self.assertRaises(ChainError) as cm:
                    self.c.run("x", tools=[T("t", lambda a: 1)])
                self.assertEqual((cm.exception.status, cm.exception.reason), ("error", "error"))
                self.assertEqual(cm.exception.chain.id, "ch_1")
                self.assertEqual(self.stub.seen("DELETE", "/v1/chains/ch_1"), [])

    def test_run_retries_an_answer_the_store_could_not_record(self):
        tries = []
        taken = threading.Event()

        def answer(r):
            tries.append(r.body)
            if len(tries) < 3:
                return error_reply(503, "store_unavailable")
            taken.set()
            return json_reply(200, {"call": call_doc("c1", 1, "t", {}), "answered": "x"})

        self.run_stub([sse("call_pending", call_doc("c1", 1, "t", {}), 1), taken,
                       sse("done", chain_doc(status="ok"), 2)], answers=answer)
        self.c.run("x", tools=[T("t", lambda a: 5)])
        self.assertEqual(tries, [{"args_hash": "h-c1", "result": 5}] * 3)

    def test_run_fails_on_an_answer_refused_otherwise_and_cancels(self):
        self.run_stub([sse("call_pending", call_doc("c1", 1, "t", {}), 1), 5.0,
                       sse("done", chain_doc(status="ok"), 2)],
                      answers=lambda r: error_reply(403, "forbidden_role"))
        e = self.refused(self.c.run, "x", tools=[T("t", lambda a: 1)])
        self.assertEqual((e.reason, e.status), ("forbidden_role", 403))
        self.assertEqual(len(self.stub.seen("DELETE", "/v1/chains/ch_1")), 1)

    # -- delegated identities ---------------------------------------------

    def assertNoToken(self, *texts: Any) -> None:
        for t in texts:
            for tok in (TOKEN, ACTOR, FRESH):
                self.assertNotIn(tok, str(t))

    def test_submit_sends_the_identity(self):
        self.stub.routes[("POST", "/v1/chains")] = lambda r: json_reply(202, chain_doc())
        self.c.submit("x", identity=Identity(TOKEN, "jwt", ACTOR))
        self.c.submit("x", identity={"subject_token": TOKEN})
        self.c.submit("x")
        bodies = [r.body for r in self.stub.seen("POST", "/v1/chains")]
        self.assertEqual(bodies[0]["identity"], {"subject_token": TOKEN, "subject_token_type": "jwt", "actor": ACTOR})
        self.assertEqual(bodies[1]["identity"], {"subject_token": TOKEN})
        self.assertNotIn("identity", bodies[2])

    def test_identity_repr_never_shows_a_token(self):
        ident = Identity(TOKEN, "access_token", ACTOR)
        self.assertNoToken(repr(ident), str(ident), "%s %r" % (ident, [ident]))
        self.assertIn("[REDACTED]", repr(ident))
        self.assertNoToken(repr(CredentialRequest("ch_1", 1, "crm_lookup", "credential_expired", "crm", True)))
        for bad in [{"subject_token": 5}, {"subject_token": ""}, {"subject_token": TOKEN, "token": FRESH},
                    {"subject_token": TOKEN, "actor": 7}, [TOKEN], TOKEN]:
            with self.subTest(type(bad).__name__), self.assertRaises((TypeError, ValueError)) as cm:
                self.c.submit("x", identity=bad)
            self.assertNoToken(cm.exception, repr(cm.exception))
        self.assertEqual(self.stub.requests, [])

    def test_set_identity_posts_it(self):
        self.stub.routes[("POST", "/v1/chains/ch_1/identity")] = lambda r: Reply(204, body=b"")
        self.assertIsNone(self.c.set_identity("ch_1", Identity(FRESH, actor=ACTOR)))
        self.c.set_identity("ch_1", {"subject_token": FRESH, "subject_token_type": "id_token"})
        bodies = [r.body for r in self.stub.seen("POST", "/v1/chains/ch_1/identity")]
        self.assertEqual(bodies, [{"subject_token": FRESH, "actor": ACTOR},
                                  {"subject_token": FRESH, "subject_token_type": "id_token"}])

    def test_every_identity_refusal_keeps_its_reason_and_no_token(self):
        for status, reason in [(400, "invalid_request"), (404, "chain_not_found"), (409, "chain_finished"),
                               (409, "chain_parked"), (409, "running_elsewhere")]:
            # A server that echoes the token: the client's error still holds none.
            self.stub.routes[("POST", "/v1/chains/ch_1/identity")] = lambda r, s=status, n=reason: error_reply(
                s, n, "refused " + r.body["subject_token"], echo=[r.body["actor"]])
            e = self.refused(self.c.set_identity, "ch_1", Identity(FRESH, actor=ACTOR))
            self.assertEqual((e.status, e.reason), (status, reason))
            self.assertEqual(e.message, "refused [REDACTED]")
            self.assertNoToken(e, repr(e), e.message, e.body)
        for reply in [lambda r: raw_reply(502, ("<html>" + r.body["subject_token"] + "</html>").encode()),
                      lambda r: json_reply(200, {"token": r.body["subject_token"]})]:
            self.stub.routes[("POST", "/v1/chains/ch_1/identity")] = reply
            e = self.refused(self.c.set_identity, "ch_1", Identity(FRESH))
            self.assertEqual(e.reason, UNEXPECTED_RESPONSE)
            self.assertNoToken(e, repr(e), e.message, e.body)
        self.stub.routes[("POST", "/v1/chains")] = lambda r: error_reply(
            400, "invalid_request", "bad identity " + r.body["identity"]["subject_token"])
        e = self.refused(self.c.submit, "x", identity=Identity(TOKEN))
        self.assertEqual(e.reason, "invalid_request")
        self.assertNoToken(e, repr(e), e.message)
        e = self.refused(self.make("http://127.0.0.1:1").set_identity, "ch_1", Identity(FRESH))
        self.assertEqual(e.reason, NETWORK_ERROR)
        self.assertNoToken(e)

    def test_run_asks_for_a_fresh_identity_once_per_call(self):
        took = threading.Event()
        asked = []
        self.stub.routes[("POST", "/v1/chains/ch_1/identity")] = lambda r: (took.set(), Reply(204, body=b""))[1]
        self.run_stub([sse("credential_required", credential_doc(1), 1),
                       sse("credential_required", credential_doc(1), 2),  # the same call: asked once
                       took, sse("credential_required", credential_doc(4, reason="credential_unavailable"), 3), 0.5,
                       sse("done", chain_doc(status="ok", value=1), 4)])

        def fresh(req):
            asked.append((req.chain_id, req.seq, req.tool, req.audience, req.reason, req.parked))
            return Identity(FRESH) if req.seq == 1 else None

        ch = self.c.run("x", identity=Identity(TOKEN), on_credential_required=fresh)
        self.assertEqual(ch.value, 1)
        self.assertEqual(asked, [("ch_1", 1, "crm_lookup", "crm", "credential_expired", False),
                                 ("ch_1", 4, "crm_lookup", "crm", "credential_unavailable", False)])
        self.assertEqual([r.body for r in self.stub.seen("POST", "/v1/chains/ch_1/identity")], [{"subject_token": FRESH}])
        self.assertEqual(self.stub.seen("POST", "/v1/chains")[0].body["identity"], {"subject_token": TOKEN})

    def test_resume_hands_a_parked_chain_a_fresh_identity(self):
        parked = dict(chain_doc(status="parked"), pending=[
            {"id": "pi_1", "kind": "credential", "seq": 3, "tool": "crm_lookup", "gate": "credential",
             "rule": "credential_expired", "expires": "2026-11-27T22:00:00Z"}])
        took = threading.Event()
        asked = []
        self.stub.routes[("POST", "/v1/chains/ch_1/identity")] = lambda r: (took.set(), Reply(204, body=b""))[1]
        # Attached: the replayed event only lends its audience; the parked
        # chain's entry asks, once, though the view is seen three times.
        self.run_stub([sse("credential_required", credential_doc(3, parked=True), 1), sse("status", parked, 2),
                       sse("status", parked, 3), took, 0.2, sse("status", chain_doc(status="running"), 4),
                       sse("done", chain_doc(status="ok", value="v"), 5)],
                      chain=lambda r: json_reply(200, parked))
        self.c.poll_interval = 0.1

        def fresh(req):
            asked.append((req.seq, req.tool, req.audience, req.reason, req.parked))
            return {"subject_token": FRESH}

        ch = self.c.resume("ch_1", on_credential_required=fresh)
        self.assertEqual(ch.value, "v")
        self.assertEqual(asked, [(3, "crm_lookup", "crm", "credential_expired", True)])
        self.assertEqual(len(self.stub.seen("POST", "/v1/chains/ch_1/identity")), 1)

    def test_a_call_that_parks_again_is_asked_about_again(self):
        # The fresh identity was refused too: the same call (seq 3) parks
        # anew, under another pending id, and the handler is asked again.
        def view(pid):
            return dict(chain_doc(status="parked"), pending=[
                {"id": pid, "kind": "credential", "seq": 3, "tool": "crm_lookup", "rule": "credential_expired"}])

        took = [threading.Event(), threading.Event()]
        posted = []

        def take(r):
            posted.append(r.body["subject_token"])
            took[len(posted) - 1].set()
            return Reply(204, body=b"")

        self.stub.routes[("POST", "/v1/chains/ch_1/identity")] = take
        self.run_stub([sse("status", view("pi_1"), 1), took[0], sse("status", chain_doc(status="running"), 2),
                       sse("status", view("pi_1"), 3),  # a replay of the first park: not asked again
                       sse("status", view("pi_2"), 4), took[1], sse("done", chain_doc(status="ok", value=1), 5)],
                      chain=lambda r: json_reply(200, view("pi_2") if len(posted) == 1 else chain_doc(status="running")))
        asked = []
        self.c.run("x", on_credential_required=lambda req: asked.append(req.seq) or Identity(FRESH + str(len(asked))))
        self.assertEqual(asked, [3, 3])
        self.assertEqual(posted, [FRESH + "1", FRESH + "2"])

    def test_run_without_a_credential_handler_asks_nothing(self):
        self.run_stub([sse("credential_required", credential_doc(1, parked=True), 1),
                       sse("status", dict(chain_doc(status="parked"), pending=[
                           {"id": "pi_1", "kind": "credential", "seq": 1, "tool": "crm_lookup",
                            "rule": "credential_expired"}]), 2), 0.3,
                       sse("done", chain_doc(status="ok"), 3)])
        self.c.run("x")
        self.assertEqual(self.stub.seen("POST", "/v1/chains/ch_1/identity"), [])

    def test_moot_identity_refusals_are_dropped(self):
        refusals = {FRESH + "1": (409, "chain_finished"), FRESH + "2": (409, "chain_parked"),
                    FRESH + "3": (409, "running_elsewhere")}
        self.stub.routes[("POST", "/v1/chains/ch_1/identity")] = lambda r: error_reply(
            *refusals[r.body["subject_token"]])
        # running_elsewhere is moot for a parked chain's request: another
        # process resumed it.
        parked = dict(chain_doc(status="parked"), pending=[
            {"id": "pi_3", "kind": "credential", "seq": 3, "tool": "crm_lookup", "rule": "credential_expired"}])
        self.run_stub([sse("credential_required", credential_doc(1), 1),
                       sse("credential_required", credential_doc(2), 2),
                       sse("credential_required", credential_doc(3, parked=True), 3), sse("status", parked, 4), 0.5,
                       sse("done", chain_doc(status="ok", value=2), 5)], chain=lambda r: json_reply(200, parked))
        ch = self.c.run("x", on_credential_required=lambda req: Identity(FRESH + str(req.seq)))
        self.assertEqual(ch.value, 2)
        self.assertEqual(len(self.stub.seen("POST", "/v1/chains/ch_1/identity")), 3)

    def test_other_identity_refusals_fail_the_run_without_a_token(self):
        for reason, status in [("running_elsewhere", 409), ("invalid_request", 400), ("chain_not_found", 404)]:
            with self.subTest(reason):
                self.stub.requests.clear()
                self.stub.routes[("POST", "/v1/chains/ch_1/identity")] = lambda r, n=reason, s=status: error_reply(
                    s, n, "no " + r.body["subject_token"])
                self.run_stub([sse("credential_required", credential_doc(1), 1), 5.0,
                               sse("done", chain_doc(status="ok"), 2)])
                e = self.refused(self.c.run, "x", identity=Identity(TOKEN),
                                 on_credential_required=lambda req: Identity(FRESH))
                self.assertEqual((e.reason, e.status), (reason, status))
                self.assertNoToken(e, repr(e), e.message)
                self.assertEqual(len(self.stub.seen("DELETE", "/v1/chains/ch_1")), 1)

    def test_a_credential_handler_that_raises_fails_the_run(self):
        def boom(req):
            raise RuntimeError("no token for " + req.tool)

        self.run_stub([sse("credential_required", credential_doc(1), 1), 5.0, sse("done", chain_doc(status="ok"), 2)])
        with self.assertRaises(RuntimeError):
            self.c.run("x", on_credential_required=boom)
        self.assertEqual(len(self.stub.seen("DELETE", "/v1/chains/ch_1")), 1)

    def test_run_decides_approvals(self):
        seen = []

        def decide(r):
            return json_reply(200, {"request": approval_doc(r.path.rsplit("/", 1)[1]), "decision": "approved",
                                    "decided": "x"})

        self.stub.routes[("POST", "/v1/approvals/*")] = decide
        self.run_stub([sse("approval_required", approval_doc("a0"), 1),  # replayed, settled: no args
                       sse("approval_required", approval_doc("a1", args={"to": "x"}), 2),
                       sse("approval_required", approval_doc("a2", args={"to": "y"}), 3),
                       sse("approval_required", approval_doc("a3", args={"to": "z"}), 4), 0.5,
                       sse("done", chain_doc(status="ok"), 5)])

        def on_approval(req):
            seen.append(req.id)
            return {"x": True, "y": "deny", "z": None}[req.args["to"]]

        self.c.run("x", on_approval=on_approval)
        self.assertEqual(sorted(seen), ["a1", "a2", "a3"])
        got = {r.path: r.body for r in self.stub.requests if r.path.startswith("/v1/approvals/")}
        self.assertEqual(got, {"/v1/approvals/a1": {"decision": "approve", "args_hash": "ah-a1"},
                               "/v1/approvals/a2": {"decision": "deny", "args_hash": "ah-a2"}})

    def test_run_serves_a_parked_chain(self):
        parked = dict(chain_doc(status="parked"), pending=[
            {"id": "pk_c1", "kind": "call", "tool": "t", "args_hash": "h-pk_c1", "seq": 1},
            {"id": "pk_a1", "kind": "approval", "tool": "send", "risk": "HIGH", "args_hash": "ah-pk_a1"}])
        resumed = threading.Event()
        self.stub.routes[("POST", "/v1/approvals/*")] = lambda r: json_reply(
            200, {"request": approval_doc("pk_a1"), "decision": "approved", "decided": "x"})
        self.stub.routes[("GET", "/v1/approvals/pk_a1")] = lambda r: json_reply(200, approval_doc("pk_a1", args={}))

        def answer(r):
            resumed.set()
            return json_reply(200, {"call": call_doc("pk_c1", 1, "t", {}), "answered": "x"})

        self.run_stub([sse("status", parked, 1), resumed, 0.3, sse("status", chain_doc(status="running"), 2),
                       sse("done", chain_doc(status="ok", value="v"), 3)],
                      answers=answer, calls=lambda r: json_reply(200, call_doc("pk_c1", 1, "t", {"q": 1})),
                      chain=lambda r: json_reply(200, parked))
        ch = self.c.run("x", tools=[T("t", lambda a: a["q"] + 1)], on_approval=lambda r: True)
        self.assertEqual(ch.value, "v")
        self.assertEqual(self.answers(), {"pk_c1": {"args_hash": "h-pk_c1", "result": 2}})
        self.assertEqual(len(self.stub.seen("POST", "/v1/approvals/pk_a1")), 1)

    def test_run_polls_a_parked_chain_for_new_pending(self):
        # Parked again between two polls without a status change in the
        # stream: the poll finds the new entry.
        views = [dict(chain_doc(status="parked"), pending=[{"id": "pk_2", "kind": "call", "tool": "t"}])]
        answered = threading.Event()

        def answer(r):
            answered.set()
            return json_reply(200, {"call": call_doc("pk_2", 1, "t", {}), "answered": "x"})

        self.run_stub([sse("status", dict(chain_doc(status="parked"), pending=[]), 1), answered,
                       sse("done", chain_doc(status="ok"), 2)], answers=answer,
                      calls=lambda r: json_reply(200, call_doc("pk_2", 2, "t", {})),
                      chain=lambda r: json_reply(200, views[0]))
        self.c.poll_interval = 0.1
        self.c.run("x", tools=[T("t", lambda a: "ok")])
        self.assertEqual(self.answers(), {"pk_2": {"args_hash": "h-pk_2", "result": "ok"}})

    def test_wait_reads_a_replayed_call_again(self):
        ran = []
        self.run_stub([sse("call_pending", call_doc("c1", 1, "t", {"n": 1}), 1),
                       sse("call_pending", call_doc("c2", 2, "t", {"n": 2}), 2), 0.5,
                       sse("done", chain_doc(status="ok"), 3)],
                      calls=lambda r: error_reply(404, "call_not_found") if r.path.endswith("c1")
                      else json_reply(200, call_doc("c2", 2, "t", {"n": 2})))
        self.c.resume("ch_1", tools=[T("t", lambda a: ran.append(a["n"]))])
        self.assertEqual(ran, [2])
        self.assertEqual(list(self.answers()), ["c2"])

    def test_run_sweeps_calls_after_a_reconnect(self):
        n = {"i": 0}

        def events(r):
            n["i"] += 1
            if n["i"] == 1:
                return sse_reply(sse("tool_call", {}, 1), DROP)
            return sse_reply(0.5, sse("done", chain_doc(status="ok"), 2))

        self.run_stub([], calls=lambda r: json_reply(200, call_doc("c8", 8, "t", {"n": 8})))
        self.stub.routes[("GET", "/v1/chains/ch_1/events")] = events
        # c8 is listed without its args (past the listing's bound): read by id.
        without_args = {k: v for k, v in call_doc("c8", 8, "t", {}).items() if k != "args"}
        self.stub.routes[("GET", "/v1/chains/ch_1/calls")] = lambda r: json_reply(
            200, {"calls": [call_doc("c9", 9, "t", {"n": 9}), without_args]})
        self.c.run("x", tools=[T("t", lambda a: a["n"])])
        self.assertEqual(self.answers(), {"c9": {"args_hash": "h-c9", "result": 9},
                                          "c8": {"args_hash": "h-c8", "result": 8}})
        self.assertEqual([r.path for r in self.stub.requests if r.path.startswith("/v1/calls/") and r.method == "GET"],
                         ["/v1/calls/c8"])

    def test_run_timeout_cancels_the_chain(self):
        self.run_stub([sse("tool_call", {}, 1), 3.0, sse("done", chain_doc(status="ok"), 2)])
        t = time.monotonic()
        e = self.refused(self.c.run, "x", timeout=0.3)
        self.assertEqual((e.reason, e.status), (CLIENT_TIMEOUT, None))
        self.assertLess(time.monotonic() - t, 2.5)
        self.assertEqual(len(self.stub.seen("DELETE", "/v1/chains/ch_1")), 1)

    def test_wait_timeout_leaves_the_chain(self):
        self.run_stub([sse("tool_call", {}, 1), 3.0, sse("done", chain_doc(status="ok"), 2)])
        e = self.refused(self.c.wait, "ch_1", timeout=0.3)
        self.assertEqual(e.reason, CLIENT_TIMEOUT)
        self.assertEqual(self.stub.seen("DELETE", "/v1/chains/ch_1"), [])

    def test_stream_that_ends_before_done_reads_the_chain(self):
        self.run_stub([sse("tool_call", {}, 1)], chain=lambda r: json_reply(200, chain_doc(status="ok", value=1)))
        # Every reconnect ends at once too: after the failures the client
        # gives up with network_error, or reads the chain if it ended.
        ch = self.c.wait("ch_1")
        self.assertEqual(ch.value, 1)

    def test_chain_errors_carry_the_result(self):
        self.run_stub([sse("done", chain_doc(status="error", reason="script_error", error="Error: boom", line=2,
                                             column=9), 1)])
        submitted = []
        with self.assertRaises(ChainError) as cm:
            self.c.run("throw new Error('boom')", on_submitted=submitted.append)
        e = cm.exception
        self.assertEqual((e.status, e.reason, e.line, e.column), ("error", "script_error", 2, 9))
        self.assertEqual(e.chain.result.error, "Error: boom")
        self.assertEqual([c.id for c in submitted], ["ch_1"])
        # wait returns the chain whatever its status; resume raises.
        self.assertEqual(self.c.wait("ch_1").status, "error")
        with self.assertRaises(ChainError):
            self.c.resume("ch_1")

    def test_pending_call_fields(self):
        d = dict(call_doc("c1", 3, "t", {"n": 1}), idempotency_key="order-7")
        self.stub.routes[("GET", "/v1/calls/c1")] = lambda r: json_reply(200, d)
        c = self.c.call("c1")
        self.assertEqual((c.id, c.seq, c.tool, c.args, c.has_args, c.idempotency_key, c.deadline),
                         ("c1", 3, "t", {"n": 1}, True, "order-7", "2026-11-27T21:01:00Z"))

    def test_handlers_see_their_call(self):
        seen = []

        def handler(args):
            c = current_call()
            seen.append((c.id, c.seq, c.deadline, args["n"]))
            return None

        self.run_stub([sse("call_pending", call_doc("c1", 1, "t", {"n": 1}), 1),
                       sse("call_pending", call_doc("c2", 2, "t", {"n": 2}), 2), 0.5,
                       sse("done", chain_doc(status="ok"), 3)])
        self.assertIsNone(current_call())
        self.c.run("x", tools=[T("t", handler)])
        self.assertEqual(sorted(seen), [("c1", 1, "2026-11-27T21:01:00Z", 1), ("c2", 2, "2026-11-27T21:01:00Z", 2)])
        self.assertIsNone(current_call())

    def test_run_skips_replayed_calls_without_args(self):
        settled = {k: v for k, v in call_doc("c1", 1, "t", {"n": 1}).items() if k != "args"}
        ran = []
        self.run_stub([sse("call_pending", settled, 1), 0.3, sse("done", chain_doc(status="ok"), 2)])
        self.c.run("x", tools=[T("t", lambda a: ran.append(a))])
        self.assertEqual((ran, self.answers()), ([], {}))

    def test_approvals_are_posted_by_the_approver(self):
        approver = self.make(self.stub.url, "approver-key-0123456789")
        self.stub.routes[("POST", "/v1/approvals/a1")] = lambda r: json_reply(
            200, {"request": approval_doc("a1"), "decision": "approved", "decided": "x"})
        self.run_stub([sse("approval_required", approval_doc("a1", args={}), 1), 0.5,
                       sse("done", chain_doc(status="ok"), 2)])
        self.c.run("x", on_approval=lambda r: "approve", approver=getattr(approver, "client", approver))
        d = self.stub.seen("POST", "/v1/approvals/a1")
        self.assertEqual([r.header("Authorization") for r in d], ["Bearer approver-key-0123456789"])
        self.assertEqual(self.stub.seen("POST", "/v1/chains")[0].header("Authorization"), "Bearer " + KEY)

    def test_wait_parked(self):
        views = iter([chain_doc(status="running"), dict(chain_doc(status="parked"), pending=[]),
                      dict(chain_doc(status="parked"), pending=[{"id": "pc_1", "kind": "call", "tool": "t"}])])
        self.stub.routes[("GET", "/v1/chains/ch_1")] = lambda r: json_reply(200, next(views))
        ch = self.c.wait_parked("ch_1", interval=0.01)
        self.assertEqual((ch.status, ch.pending[0].kind, ch.pending[0].id), ("parked", "call", "pc_1"))
        self.stub.routes[("GET", "/v1/chains/ch_1")] = lambda r: json_reply(200, chain_doc(status="running"))
        e = self.refused(self.c.wait_parked, "ch_1", timeout=0.2, interval=0.05)
        self.assertEqual((e.reason, e.status), (WAIT_TIMEOUT, None))


def approval_doc_obj():
    from airlock_client import ApprovalRequest
    return ApprovalRequest.from_json(approval_doc("a1", args={}))


class SyncTest(ContractTests, unittest.TestCase):
    def make(self, url: str, key: str | None = KEY, **kw: Any) -> Airlock:
        return Airlock(url, key, **kw)

    def test_cancel_event_stops_run_and_cancels_the_chain(self):
        self.run_stub([sse("tool_call", {}, 1), 5.0, sse("done", chain_doc(status="ok"), 2)])
        stop = threading.Event()
        threading.Timer(0.3, stop.set).start()
        t = time.monotonic()
        e = self.refused(self.c.run, "x", cancel=stop)
        self.assertEqual(e.reason, CLIENT_CANCELLED)
        self.assertLess(time.monotonic() - t, 2.0)
        self.assertEqual(len(self.stub.seen("DELETE", "/v1/chains/ch_1")), 1)

    def test_stream_as_a_context_manager(self):
        self.stub.routes[("GET", "/v1/chains/ch_1/events")] = lambda r: sse_reply(sse("tool_call", {}, 1), 5.0)
        with self.c.events("ch_1") as stream:
            self.assertEqual(next(stream).name, "tool_call")
        self.assertEqual(list(stream), [])

    def test_close_unblocks_a_reading_thread(self):
        self.stub.routes[("GET", "/v1/chains/ch_1/events")] = lambda r: sse_reply(sse("tool_call", {}, 1), 5.0)
        stream = self.c.events("ch_1")
        self.assertEqual(next(stream).name, "tool_call")
        threading.Timer(0.2, stream.close).start()
        t = time.monotonic()
        self.assertEqual(list(stream), [])
        self.assertLess(time.monotonic() - t, 2.0)


class AsyncTest(ContractTests, unittest.TestCase):
    def make(self, url: str, key: str | None = KEY, **kw: Any) -> AsyncFacade:
        return AsyncFacade(AsyncAirlock(url, key, **kw))

    def test_cancelling_the_task_cancels_the_chain(self):
        self.run_stub([sse("tool_call", {}, 1), 5.0, sse("done", chain_doc(status="ok"), 2)])

        async def main():
            task = asyncio.ensure_future(self.c.client.run("x"))
            await asyncio.sleep(0.3)
            task.cancel()
            with self.assertRaises(asyncio.CancelledError):
                await task

        t = time.monotonic()
        asyncio.run(main())
        self.assertLess(time.monotonic() - t, 2.0)
        self.assertEqual(len(self.stub.seen("DELETE", "/v1/chains/ch_1")), 1)

    def test_stream_as_a_context_manager(self):
        self.stub.routes[("GET", "/v1/chains/ch_1/events")] = lambda r: sse_reply(sse("tool_call", {}, 1), 5.0)

        async def main():
            async with self.c.client.events("ch_1") as stream:
                self.assertEqual((await stream.__anext__()).name, "tool_call")
            self.assertEqual([ev async for ev in stream], [])

        t = time.monotonic()
        asyncio.run(main())
        self.assertLess(time.monotonic() - t, 2.0)

    def test_coroutine_handlers_run_concurrently_on_the_loop(self):
        started = []

        async def handler(args):
            self.assertEqual(current_call().args, args)  # each task its own call
            started.append(args["n"])
            while len(started) < 2:  # both started before either returns
                await asyncio.sleep(0.01)
            return args["n"] * 10

        answered = threading.Event()

        def answer(r):
            if len(self.answers()) == 2:
                answered.set()
            return json_reply(200, {"call": call_doc("c", 1, "t", {}), "answered": "x"})

        self.run_stub([sse("call_pending", call_doc("c1", 1, "t", {"n": 1}), 1),
                       sse("call_pending", call_doc("c2", 2, "t", {"n": 2}), 2), answered,
                       sse("done", chain_doc(status="ok"), 3)], answers=answer)
        self.c.run("x", tools=[T("t", handler)])
        self.assertEqual(self.answers(), {"c1": {"args_hash": "h-c1", "result": 10},
                                          "c2": {"args_hash": "h-c2", "result": 20}})


class ToolTest(unittest.TestCase):
    def test_decorator(self):
        @tool(input_schema={"type": "object", "properties": {"email": {"type": "string"}}}, risk="LOW")
        def lookup_customer(args):
            """Find a customer
            by email."""
            return args

        self.assertEqual(lookup_customer.declaration(), {
            "name": "lookup_customer", "description": "Find a customer by email.",
            "input_schema": {"type": "object", "properties": {"email": {"type": "string"}}}, "risk": "LOW"})

    def test_bad_names_and_duplicates(self):
        for bad in ["", "A", "a.b", "a b", "a" * 65, "tools.x", None]:
            with self.assertRaises(ValueError, msg=bad):
                T(bad, lambda a: a)
        for good in ["a" * 64, "1a", "a-b", "lookup_customer"]:
            T(good, lambda a: a)
        with self.assertRaises(ValueError):
            Tool("a", lambda a: a)  # no description
        with self.assertRaises(ValueError):
            Tool("a", "not callable", description="x")
        with self.assertRaises(ValueError):
            Airlock().run("x", tools=[T("a", lambda a: a), T("a", lambda a: a)])
        with self.assertRaises(TypeError):
            Airlock().run("x", tools=[{"name": "a"}])

    def test_bad_base_urls(self):
        for bad in ["ftp://x", "127.0.0.1:8080", "http://", "http://u:p@x", "http://x/?q=1"]:
            with self.assertRaises(ValueError, msg=bad):
                Airlock(bad)


if __name__ == "__main__":
    unittest.main()
