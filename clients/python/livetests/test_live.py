"""Live tests of both clients against one real `airlock serve` (approval
mode queue), started by client_test.go (TestLive/one_process)."""

from __future__ import annotations

import asyncio
import threading
import time
import unittest

from airlock_client import (AirlockError, AsyncAirlock, ChainError, Tool, async_code_mode_tool, code_mode_tool,
                            current_call)

from .live import KEY, MODE, OTHER_KEY, SUBMIT_KEY, APPROVER_KEY, URLS, LiveBase, tool

NUMBER = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
EMAIL = {"type": "object", "properties": {"email": {"type": "string"}}, "required": ["email"]}


class Live(LiveBase):
    def setUp(self) -> None:
        self.assertEqual(MODE, "queue")
        self.c = self.client()

    def test_two_caller_tools_at_once(self):
        both = threading.Barrier(2, timeout=15)  # breaks unless both handlers run together

        def lookup(args):
            both.wait()
            return {"id": 7, "email": args["email"]}

        def score(args):
            both.wait()
            return args["n"] * 10

        events = []
        ch = self.c.run(
            "const [c, s] = await Promise.all([tools.lookup({email: 'a@example.com'}), tools.score({n: 4})]);\n"
            "return {c, s};",
            tools=[tool("lookup", lookup, input_schema=EMAIL), tool("score", score, input_schema=NUMBER)],
            on_event=lambda ev: events.append(ev.name), timeout=60)
        self.assertEqual(ch.status, "ok", ch.result)
        self.assertEqual(ch.value, {"c": {"id": 7, "email": "a@example.com"}, "s": 40})
        self.assertEqual(sorted((r.tool, r.status) for r in ch.result.trace), [("lookup", "ok"), ("score", "ok")])
        self.assertEqual(events.count("call_pending"), 2)
        self.assertEqual(events[-1], "done")

    def test_a_handler_sees_its_call_and_idempotency_key(self):
        seen = []

        def charge(args):
            c = current_call()
            seen.append((c.tool, c.seq, c.idempotency_key, args))
            return "charged"

        ch = self.c.run('return await tools.charge({n: 5, "$idempotency_key": "order-7"});',
                        tools=[tool("charge", charge, input_schema=NUMBER)], timeout=60)
        self.assertEqual(ch.value, "charged")
        self.assertEqual(seen, [("charge", 1, "order-7", {"n": 5})])

    def test_a_handler_that_raises_is_a_tool_error(self):
        def lookup(args):
            raise LookupError("no customer with email %s" % args["email"])

        ch = self.c.run("try { await tools.lookup({email: 'x@example.com'}); }\n"
                        "catch (e) { return {name: e.name, reason: e.reason, message: e.message}; }",
                        tools=[tool("lookup", lookup, input_schema=EMAIL)], timeout=60)
        self.assertEqual(ch.value, {"name": "ToolError", "reason": "tool_error",
                                    "message": "no customer with email x@example.com"})
        self.assertEqual((ch.result.trace[0].status, ch.result.trace[0].reason), ("error", "tool_error"))

    def test_an_approval_decided_through_the_client(self):
        seen, ran = [], []

        def send(args):
            ran.append(args["to"])
            return {"sent": True}

        def on_approval(req):
            seen.append((req.tool, req.risk, req.args))
            return req.args["to"] == "ops@example.com"

        send_tool = tool("send", send, risk="HIGH", input_schema={
            "type": "object", "properties": {"to": {"type": "string"}}, "required": ["to"]})
        ch = self.c.run(
            "const ok = await tools.send({to: 'ops@example.com'});\n"
            "try { await tools.send({to: 'everyone@example.com'}); return {ok, denied: null}; }\n"
            "catch (e) { return {ok, denied: e.reason}; }",
            tools=[send_tool], on_approval=on_approval, timeout=60)
        self.assertEqual(ch.value, {"ok": {"sent": True}, "denied": "approval_denied"})
        self.assertEqual(ran, ["ops@example.com"])  # the denied call never reached its handler
        self.assertEqual(seen, [("send", "HIGH", {"to": "ops@example.com"}),
                                ("send", "HIGH", {"to": "everyone@example.com"})])
        self.assertEqual([(r.status, r.reason) for r in ch.result.trace], [("ok", ""), ("denied", "approval_denied")])

    def test_a_caller_tool_that_never_answers_times_out(self):
        release = threading.Event()

        def stuck(args):
            release.wait(4)  # far past the call's 1s deadline
            return "too late"

        t0 = time.monotonic()
        ch = self.c.run("try { await tools.stuck({}); return 'answered'; } catch (e) { return e.reason; }",
                        tools=[tool("stuck", stuck)], policy={"call_timeout": "1s", "approval_timeout": "500ms"},
                        timeout=60)
        release.set()
        self.assertEqual(ch.value, "call_timeout")
        self.assertEqual((ch.result.trace[0].status, ch.result.trace[0].reason), ("timeout", "call_timeout"))
        self.assertLess(time.monotonic() - t0, 30)

    def test_a_refused_result_reaches_the_script_as_an_error(self):
        # The handler's result breaks the output schema: run answers the
        # refusal as an error instead of leaving the call to time out.
        ch = self.c.run("try { return await tools.count({}); } catch (e) { return e.message; }",
                        tools=[tool("count", lambda a: {"n": "three"}, output_schema=NUMBER)], timeout=60)
        self.assertIn("output_schema_mismatch", ch.value)

    def test_every_refused_answer_has_its_reason(self):
        t = tool("count", lambda a: a, input_schema=NUMBER, output_schema=NUMBER)
        ch = self.c.submit("return await tools.count({n: 1});", tools=[t])
        call = self.pending_calls(self.c, ch.id)[0]
        self.assertEqual((call.tool, call.args, call.chain_id, call.seq), ("count", {"n": 1}, ch.id, 1))
        self.assertEqual(self.c.call(call.id).args_hash, call.args_hash)
        self.assertIn(call.id, [x.id for x in self.c.calls()])

        cases = [
            ("wrong args_hash", lambda: self.c.answer(call, {"n": 1}, args_hash="0" * 64), 409, "args_mismatch"),
            ("result too large", lambda: self.c.answer(call, {"n": 1, "pad": "x" * 10000}), 413, "result_too_large"),
            ("output schema", lambda: self.c.answer(call, {"n": "one"}), 422, "output_schema_mismatch"),
            ("empty error", lambda: self.c.answer(call, error=""), 400, "invalid_request"),
            ("another tenant", lambda: self.client(OTHER_KEY).answer(call, {"n": 1}), 404, "call_not_found"),
            ("another tenant reads", lambda: self.client(OTHER_KEY).call(call.id), 404, "call_not_found"),
            ("another tenant's chain", lambda: self.client(OTHER_KEY).calls(ch.id), 404, "chain_not_found"),
            ("no key", lambda: self.client(None).answer(call, {"n": 1}), 401, "unauthenticated"),
            ("wrong key", lambda: self.client("not-a-key-0123456789").calls(), 401, "unauthenticated"),
            ("approver key", lambda: self.client(APPROVER_KEY).answer(call, {"n": 1}), 403, "forbidden_role"),
            ("no such call", lambda: self.c.answer(ch.id + ".99", {"n": 1}, args_hash=call.args_hash), 404,
             "call_not_found"),
        ]
        for name, fn, status, reason in cases:
            with self.subTest(name):
                e = self.refused(fn)
                self.assertEqual((e.status, e.reason), (status, reason), e)
        # None of them changed anything: the call still waits, and takes a
        # good answer once.
        self.assertEqual([x.id for x in self.c.calls(ch.id)], [call.id])
        a = self.client(SUBMIT_KEY).answer(call, {"n": 1})
        self.assertEqual((a.call.id, a.call.has_args), (call.id, False))
        e = self.refused(self.c.answer, call, {"n": 2})
        self.assertEqual((e.status, e.reason), (409, "already_answered"))
        done = self.c.wait(ch.id, timeout=60)
        self.assertEqual((done.status, done.value), ("ok", {"n": 1}))

    def test_an_answer_after_the_deadline_is_call_expired(self):
        ch = self.c.submit("try { await tools.count({n: 1}); } catch (e) { return e.reason; }",
                           tools=[tool("count", lambda a: a, input_schema=NUMBER)],
                           policy={"call_timeout": "1s", "approval_timeout": "500ms"})
        call = self.pending_calls(self.c, ch.id)[0]
        done = self.c.wait(ch.id, timeout=60)
        self.assertEqual(done.value, "call_timeout")
        e = self.refused(self.c.answer, call, {"n": 1})
        self.assertEqual((e.status, e.reason), (410, "call_expired"))
        e = self.refused(self.c.call, call.id)
        self.assertEqual((e.status, e.reason), (404, "call_not_found"))

    def test_submissions_refused(self):
        cases = [
            ("bad declaration", lambda: self.c.submit("return 1", tools=[{"name": "x", "description": "d" * 201}]),
             400, "invalid_caller_tools"),
            ("configured tool's name", lambda: self.c.submit("return 1", tools=[
                {"name": "search_docs", "description": "clash"}]), 400, "invalid_caller_tools"),
            ("a name the tools object keeps", lambda: self.c.submit("return 1", tools=[
                {"name": "then", "description": "x"}]), 400, "invalid_caller_tools"),
            ("bad script", lambda: self.c.submit("return (;"), 400, "invalid_script"),
            ("no key", lambda: self.client(None).submit("return 1"), 401, "unauthenticated"),
            ("approver key", lambda: self.client(APPROVER_KEY).submit("return 1"), 403, "forbidden_role"),
            ("another tenant asserted", lambda: self.c.submit("return 1", tenant="globex"), 403, "tenant_mismatch"),
            ("declarations", lambda: self.c.declarations(tools=[{"name": "x", "description": ""}]), 400,
             "invalid_caller_tools"),
        ]
        for name, fn, status, reason in cases:
            with self.subTest(name):
                e = self.refused(fn)
                self.assertEqual((e.status, e.reason), (status, reason), e)
        e = self.refused(self.c.submit, "return (;")
        self.assertEqual((e.line, e.column), (1, 9))

    def test_a_chain_that_fails_raises_chain_error(self):
        with self.assertRaises(ChainError) as cm:
            self.c.run("console.log('before');\nthrow new Error('nope');", timeout=60)
        e = cm.exception
        self.assertEqual((e.status, e.reason, e.line), ("error", "script_error", 2))
        self.assertEqual([x.text for x in e.chain.result.logs], ["before"])
        self.assertEqual(self.c.wait(e.chain.id, timeout=30).status, "error")

    def test_other_tenants_and_roles(self):
        ch = self.c.run("return 1", timeout=60)
        other = self.client(OTHER_KEY)
        for name, fn, status, reason in [
            ("chain", lambda: other.chain(ch.id), 404, "chain_not_found"),
            ("wait", lambda: other.wait(ch.id, timeout=30), 404, "chain_not_found"),
            ("cancel", lambda: other.cancel(ch.id), 404, "chain_not_found"),
            ("cancel ended", lambda: self.c.cancel(ch.id), 409, "chain_finished"),
            ("decide with a submit key", lambda: self.client(SUBMIT_KEY).decide("nope", True, args_hash="0" * 64),
             403, "forbidden_role"),
            ("decide unknown", lambda: self.c.decide("nope", True, args_hash="0" * 64), 404, "approval_not_found"),
        ]:
            with self.subTest(name):
                e = self.refused(fn)
                self.assertEqual((e.status, e.reason), (status, reason), e)

    def test_wait_answers_calls_of_a_chain_submitted_elsewhere(self):
        t = tool("count", lambda a: a["n"] + 1, input_schema=NUMBER)
        ch = self.client(SUBMIT_KEY).submit("return await tools.count({n: 41});", tools=[t])
        done = self.c.resume(ch.id, tools=[t], timeout=60)
        self.assertEqual(done.value, 42)

    def test_declarations_and_code_mode(self):
        lookup = tool("lookup", lambda a: {"id": 7}, input_schema=EMAIL)
        d = self.c.declarations(tools=[lookup], server_tools=[])
        self.assertIn("lookup(", d)
        self.assertNotIn("search_docs", d)
        if self.kind == "sync":
            t = code_mode_tool(self.c, [lookup], "anthropic", server_tools=[])
            run = t.execute
        else:
            t = asyncio.run(async_code_mode_tool(self.c.client, [lookup], "anthropic", server_tools=[]))
            run = lambda args: asyncio.run(t.execute(args))  # noqa: E731
        self.assertIn(d.strip(), t["description"])
        self.assertEqual(run({"script": "return await tools.lookup({email: 'a@example.com'});"}),
                         {"ok": True, "value": {"id": 7}, "logs": []})
        out = run({"script": "return await tools.search_docs({query: 'x'});"})
        self.assertEqual((out["ok"], out["reason"]), (False, "script_error"))
        self.assertIn('no tool named "search_docs"', out["error"])  # outside the selection
        self.assertEqual(run({"script": "return (;"})["reason"], "invalid_script")

    def test_events_and_artifacts(self):
        big = "x" * 6000  # above max_inline_result_bytes (4 KiB): offloaded as an artifact
        ch = self.c.run("const r = await tools.blob({}); return r;", tools=[tool("blob", lambda a: {"text": big})],
                        timeout=60)
        self.assertEqual(ch.status, "ok")
        self.assertEqual(len(ch.result.artifacts), 1)
        data = self.c.artifact(ch.result.artifacts[0].ref)
        self.assertEqual(len(data), ch.result.artifacts[0].size)
        self.assertIn(big.encode(), data)
        e = self.refused(self.client(OTHER_KEY).artifact, ch.result.artifacts[0].ref)
        self.assertEqual((e.status, e.reason), (404, "artifact_not_found"))
        names = [ev.name for ev in self._events(ch.id)]
        self.assertIn("call_pending", names)
        self.assertEqual(names[-1], "done")

    def _events(self, chain_id):
        if self.kind == "sync":
            return list(self.c.events(chain_id))

        async def collect():
            return [ev async for ev in self.c.client.events(chain_id)]
        return asyncio.run(collect())


class LiveAsync(Live):
    kind = "async"

    def test_coroutine_handlers_and_cancellation(self):
        async def main():
            c = AsyncAirlock(URLS[0], KEY)
            started = []

            async def lookup(args):
                started.append(args["email"])
                while len(started) < 2:  # both calls are in flight on the loop
                    await asyncio.sleep(0.01)
                return args["email"].upper()

            t = Tool("lookup", lookup, description="Find.", input_schema=EMAIL)
            ch = await c.run("return await Promise.all([tools.lookup({email: 'a'}), tools.lookup({email: 'b'})]);",
                             tools=[t], timeout=60)
            self.assertEqual(ch.value, ["A", "B"])

            # Cancelling the task that runs a chain cancels the chain.
            seen = asyncio.Event()
            ids = []

            def on_event(ev):
                if ev.name == "call_pending":
                    ids.append(ev.data["chain_id"])
                    seen.set()

            async def never(args):
                await asyncio.sleep(3600)

            task = asyncio.ensure_future(c.run("return await tools.never({});",
                                               tools=[Tool("never", never, description="Waits.")],
                                               on_event=on_event))
            await asyncio.wait_for(seen.wait(), 30)
            task.cancel()
            with self.assertRaises(asyncio.CancelledError):
                await task
            end = await c.wait(ids[0], timeout=30)
            self.assertEqual(end.status, "cancelled")

        asyncio.run(main())


class LiveSync(unittest.TestCase):
    def test_cancel_event(self):
        from airlock_client import Airlock, CLIENT_CANCELLED
        c = Airlock(URLS[0], KEY)
        stop = threading.Event()
        ids = []

        def on_event(ev):
            if ev.name == "call_pending":
                ids.append(ev.data["chain_id"])
                stop.set()

        with self.assertRaises(AirlockError) as cm:
            c.run("return await tools.never({});", tools=[Tool("never", lambda a: time.sleep(2),
                                                               description="Waits.")],
                  on_event=on_event, cancel=stop)
        self.assertEqual(cm.exception.reason, CLIENT_CANCELLED)
        self.assertEqual(c.chain(ids[0]).status, "cancelled")


if __name__ == "__main__":
    unittest.main()
