"""Live tests of both clients against a fleet of two `airlock serve`
processes in approval mode park, started by client_test.go
(TestLive/fleet_in_park_mode)."""

from __future__ import annotations

import sys
import threading

from .live import MODE, OTHER_KEY, URLS, LiveBase, tool

NUMBER = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


def resumed_on_second(chain_id: str) -> None:
    # client_test.go checks that the second process finished these chains.
    sys.stderr.write("\nRESUMED_ON_SECOND %s\n" % chain_id)


class Fleet(LiveBase):
    def setUp(self) -> None:
        self.assertEqual(MODE, "park")
        self.assertEqual(len(URLS), 2)
        self.first, self.second = self.client(url=URLS[0]), self.client(url=URLS[1])

    def test_run_follows_a_chain_that_parks(self):
        # run on one process: each caller call parks the chain, run finds it
        # in the chain's pending entries, answers, and the chain resumes.
        ch = self.first.run("const a = await tools.inc({n: 1});\nconst b = await tools.inc({n: a});\nreturn b;",
                            tools=[tool("inc", lambda a: a["n"] + 1, input_schema=NUMBER)], timeout=120)
        self.assertEqual((ch.status, ch.value), ("ok", 3), ch.result)
        self.assertEqual([(r.tool, r.status) for r in ch.result.trace], [("inc", "ok"), ("inc", "ok")])

    def test_a_parked_chain_resumes_on_the_other_process(self):
        t = tool("inc", lambda a: a["n"] + 1, input_schema=NUMBER)
        ch = self.first.submit("return await tools.inc({n: 41});", tools=[t])
        # The first process follows it without answering anything...
        seen = {}
        watcher = threading.Thread(target=lambda: seen.update(end=self.first.wait(ch.id, timeout=120)))
        watcher.start()
        # ...and the second answers the parked call, and resumes the chain.
        parked = self._parked(ch.id, "call")
        self.assertTrue(parked.pending[0].id.startswith("pc_"), parked.pending)
        call = self.second.call(parked.pending[0].id)
        self.assertEqual((call.args, call.chain_id), ({"n": 41}, ch.id))
        e = self.refused(self.client(OTHER_KEY, URLS[1]).call, call.id)
        self.assertEqual((e.status, e.reason), (404, "call_not_found"))
        e = self.refused(self.second.answer, call, 1, args_hash="0" * 64)
        self.assertEqual((e.status, e.reason), (409, "args_mismatch"))
        done = self.second.resume(ch.id, tools=[t], timeout=120)
        watcher.join(130)
        self.assertEqual((done.status, done.value), ("ok", 42), done.result)
        self.assertEqual((seen["end"].status, seen["end"].value), ("ok", 42))
        e = self.refused(self.first.answer, call, 42)
        self.assertIn((e.status, e.reason), [(409, "already_answered"), (404, "call_not_found")])
        resumed_on_second(ch.id)

    def test_an_approval_and_a_call_parked_and_resumed_elsewhere(self):
        decided = []
        send = tool("send", lambda a: {"sent": a["to"]}, risk="HIGH", input_schema={
            "type": "object", "properties": {"to": {"type": "string"}}, "required": ["to"]})
        ch = self.first.submit("const r = await tools.send({to: 'ops@example.com'});\n"
                               "try { await tools.send({to: 'all@example.com'}); } catch (e) { return [r, e.reason]; }",
                               tools=[send])
        self.assertEqual(self._parked(ch.id, "approval").pending[0].tool, "send")

        def on_approval(req):
            decided.append(req.args["to"])
            return req.args["to"] == "ops@example.com"

        done = self.second.resume(ch.id, tools=[send], on_approval=on_approval, timeout=120)
        self.assertEqual((done.status, done.value), ("ok", [{"sent": "ops@example.com"}, "approval_denied"]),
                         done.result)
        self.assertEqual(decided, ["ops@example.com", "all@example.com"])
        resumed_on_second(ch.id)

    def test_a_parked_call_never_answered_can_be_cancelled(self):
        ch = self.first.submit("return await tools.inc({n: 1});",
                               tools=[tool("inc", lambda a: a, input_schema=NUMBER)])
        call = self.first.call(self._parked(ch.id, "call").pending[0].id)
        e = self.refused(self.client(OTHER_KEY, URLS[1]).cancel, ch.id)
        self.assertEqual((e.status, e.reason), (404, "chain_not_found"))
        self.assertEqual(self.second.cancel(ch.id).status, "cancelled")
        e = self.refused(self.first.answer, call, 2)
        self.assertIn((e.status, e.reason), [(410, "call_expired"), (404, "call_not_found")])
        self.assertEqual(self.first.wait(ch.id, timeout=60).status, "cancelled")

    def _parked(self, chain_id, kind):
        ch = self.second.wait_parked(chain_id, timeout=60)
        self.assertEqual((ch.status, [p.kind for p in ch.pending]), ("parked", [kind]))
        return ch


class FleetAsync(Fleet):
    kind = "async"


if __name__ == "__main__":
    import unittest
    unittest.main()
