"""Live tests of delegated identities, with both clients, against servers
that clients/python/client_test.go (TestLiveIdentity) started with a real
token exchange service: the tool crm_whoami (audience crm) answers whom
the exchanged token acts for; the subject tokens are alice's."""

from __future__ import annotations

import os
import time

from airlock_client import CLIENT_TIMEOUT, Identity

from .live import MODE, SUBMIT_KEY, URLS, LiveBase

try:
    SUBJECT = os.environ["AIRLOCK_TEST_SUBJECT_TOKEN"]
    FRESH = os.environ["AIRLOCK_TEST_FRESH_TOKEN"]
    EXPIRED = os.environ["AIRLOCK_TEST_EXPIRED_TOKEN"]
except KeyError as e:
    raise SystemExit("livetests: %s is not set; run them through go test ./clients/python" % e)

WHOAMI = "return await tools.crm_whoami({});"

# A running chain (queue mode) sees the refusal: it waits and retries.
RETRY = """
for (let i = 0; i < 200; i++) {
  try { return await tools.crm_whoami({}); }
  catch (e) {
    if (e.reason !== "credential_expired" && e.reason !== "credential_unavailable") throw e;
    await new Promise(r => setTimeout(r, 100));
  }
}
throw new Error("no fresh credential came");
"""


class IdentityBase(LiveBase):
    def assertNoToken(self, *texts):
        for t in texts:
            for tok in (SUBJECT, FRESH, EXPIRED):
                self.assertNotIn(tok, str(t))


class Running(IdentityBase):
    def setUp(self) -> None:
        self.assertEqual(MODE, "queue")
        self.c = self.client(SUBMIT_KEY)

    def test_a_chain_acts_for_its_user(self):
        ch = self.c.run(WHOAMI, identity=Identity(SUBJECT), timeout=60)
        self.assertEqual(ch.value, {"subject": "alice", "audience": "crm"})
        self.assertNoToken(repr(ch), ch.result.raw)
        ch = self.c.run("try { await tools.crm_whoami({}); } catch (e) { return e.reason; }", timeout=60)
        self.assertEqual(ch.value, "credential_unavailable")

    def test_a_running_chain_retries_with_a_fresh_identity(self):
        asked = []

        def fresh(req):
            asked.append((req.tool, req.audience, req.reason, req.parked))
            return {"subject_token": FRESH}

        ch = self.c.run(RETRY, identity=Identity(EXPIRED), on_credential_required=fresh, timeout=60)
        self.assertEqual(ch.value, {"subject": "alice", "audience": "crm"})
        self.assertEqual(asked[0], ("crm_whoami", "crm", "credential_expired", False))

    def test_refusals_hold_no_token(self):
        ch = self.c.run("return 1;", timeout=60)
        e = self.refused(self.c.set_identity, ch.id, Identity(FRESH))
        self.assertEqual((e.status, e.reason), (409, "chain_finished"))
        e = self.refused(self.c.set_identity, ch.id, Identity(FRESH, "no_such_type"))
        self.assertEqual((e.status, e.reason), (400, "invalid_request"))
        self.assertNoToken(e, repr(e), e.body)
        e = self.refused(self.c.submit, WHOAMI, identity={"subject_token": SUBJECT + "\n"})
        self.assertEqual((e.status, e.reason), (400, "invalid_request"))
        self.assertNoToken(e, repr(e), e.body)
        e = self.refused(self.c.set_identity, "ch_nosuchchain", Identity(FRESH))
        self.assertEqual((e.status, e.reason), (404, "chain_not_found"))


class RunningAsync(Running):
    kind = "async"


class Parked(IdentityBase):
    def setUp(self) -> None:
        self.assertEqual(MODE, "park")
        self.first, self.second = self.client(SUBMIT_KEY, URLS[0]), self.client(SUBMIT_KEY, URLS[1])

    def test_a_parked_chain_resumes_with_a_fresh_identity(self):
        asked = []

        def fresh(req):
            asked.append((req.tool, req.audience, req.reason, req.parked))
            return Identity(FRESH)

        ch = self.first.run(WHOAMI, identity=Identity(EXPIRED), on_credential_required=fresh, timeout=120)
        self.assertEqual(ch.value, {"subject": "alice", "audience": "crm"})
        self.assertEqual(asked, [("crm_whoami", "crm", "credential_expired", True)])

    def test_without_a_handler_it_stays_parked(self):
        ch = self.first.submit(WHOAMI, identity=Identity(EXPIRED))
        parked = self.second.wait_parked(ch.id, timeout=60)
        self.assertEqual([(p.kind, p.tool, p.rule) for p in parked.pending],
                         [("credential", "crm_whoami", "credential_expired")])
        e = self.refused(self.second.resume, ch.id, timeout=2)
        self.assertEqual(e.reason, CLIENT_TIMEOUT)
        time.sleep(0.5)
        self.assertEqual(self.first.chain(ch.id).status, "parked")
        self.assertEqual(self.second.cancel(ch.id).status, "cancelled")

    def test_a_parked_chain_resumed_through_the_other_process(self):
        ch = self.first.submit(WHOAMI)  # no identity at all: credential_unavailable
        self.assertEqual(self.second.wait_parked(ch.id, timeout=60).pending[0].rule, "credential_unavailable")
        asked = []
        done = self.second.resume(ch.id, on_credential_required=lambda req: asked.append(req.seq) or Identity(SUBJECT),
                                  timeout=120)
        self.assertEqual(done.value, {"subject": "alice", "audience": "crm"})
        self.assertEqual(len(asked), 1)


class ParkedAsync(Parked):
    kind = "async"


if __name__ == "__main__":
    import unittest
    unittest.main()
