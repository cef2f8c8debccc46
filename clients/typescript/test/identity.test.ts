// Live tests of delegated identities against servers that client_test.go
// (TestLiveIdentity) started with a real token exchange service: the tool
// crm_whoami (audience crm) answers whom the exchanged token acts for; the
// subject tokens (AIRLOCK_TEST_SUBJECT_TOKEN, _FRESH_TOKEN, _EXPIRED_TOKEN)
// are alice's. Against one process (approval mode queue) a running chain
// retries; against a fleet of two in park mode a chain parks for a fresh
// identity.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { inspect } from "node:util";

import { Airlock, AirlockError, Identity, type CredentialRequiredEvent } from "../src/index.js";
import { env, reasonOf } from "./env.js";

const e = env();
const need = (k: string): string => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is unset: the live tests run from client_test.go (go test ./clients/typescript/)`);
  return v;
};
const SUBJECT = need("AIRLOCK_TEST_SUBJECT_TOKEN");
const FRESH = need("AIRLOCK_TEST_FRESH_TOKEN");
const EXPIRED = need("AIRLOCK_TEST_EXPIRED_TOKEN");
const alice = { subject: "alice", audience: "crm" };
const whoami = `return await tools.crm_whoami({});`;

function assertNoToken(...xs: unknown[]): void {
  for (const x of xs) {
    const s = typeof x === "string" ? x : `${String(x)} ${inspect(x, { depth: 6 })}`;
    for (const tok of [SUBJECT, FRESH, EXPIRED]) assert.ok(!s.includes(tok), "a token in an error or a view");
  }
}

if (e.mode === "park") {
  const [urlA, urlB] = e.urls as [string, string];
  const a = new Airlock({ baseUrl: urlA, apiKey: e.submitKey });
  const b = new Airlock({ baseUrl: urlB, apiKey: e.submitKey });

  describe("live fleet: delegated identities", () => {
    it("a chain whose token expired parks, gets a fresh one from onCredentialRequired, resumes and ends ok", async () => {
      const asked: CredentialRequiredEvent[] = [];
      const out = await a.run(whoami, { identity: new Identity(EXPIRED), onCredentialRequired: (req) => { asked.push(req); return new Identity(FRESH); } });
      assert.deepEqual(out.value, alice);
      assert.deepEqual(asked.map((r) => [r.tool, r.audience, r.reason, r.parked]), [["crm_whoami", "crm", "credential_expired", true]]);
      assertNoToken(JSON.stringify(out.chain));
    });

    it("without a handler the chain stays parked, until a resume through the other process hands it one", async () => {
      const c = await a.submit(whoami, { identity: { subject_token: EXPIRED } });
      const parked = await b.waitParked(c.id);
      assert.deepEqual(parked.pending?.map((p) => [p.kind, p.tool, p.rule]), [["credential", "crm_whoami", "credential_expired"]]);
      await new Promise((r) => setTimeout(r, 1000));
      assert.equal((await a.chain(c.id)).status, "parked");
      const out = await b.resume(c.id, { onCredentialRequired: () => ({ subject_token: FRESH }) });
      assert.deepEqual(out.value, alice);
    });

    it("a parked chain left without an identity is cancelled", async () => {
      const c = await a.submit(whoami);
      assert.equal((await b.waitParked(c.id)).pending?.[0]?.rule, "credential_unavailable");
      assert.equal((await b.cancel(c.id)).status, "cancelled");
      assert.deepEqual(await reasonOf(a.setIdentity(c.id, new Identity(FRESH))), [409, "chain_finished"]);
    });
  });
} else {
  const client = new Airlock({ baseUrl: e.url, apiKey: e.submitKey });

  describe("live: delegated identities", () => {
    it("a chain acts for its user's token, and one without an identity is refused credential_unavailable", async () => {
      const out = await client.run(whoami, { identity: new Identity(SUBJECT) });
      assert.deepEqual(out.value, alice);
      assertNoToken(JSON.stringify(out.chain));
      const none = await client.run(`try { await tools.crm_whoami({}); } catch (e) { return e.reason; }`);
      assert.equal(none.value, "credential_unavailable");
    });

    it("a running chain whose token expired gets a fresh one from onCredentialRequired and its script retries", async () => {
      const asked: CredentialRequiredEvent[] = [];
      const out = await client.run(
        `for (let i = 0; i < 200; i++) {
           try { return await tools.crm_whoami({}); }
           catch (e) { if (e.reason !== "credential_expired") throw e; await new Promise(r => setTimeout(r, 100)); }
         }
         throw new Error("no fresh credential came");`,
        { identity: new Identity(EXPIRED), onCredentialRequired: (req) => { asked.push(req); return new Identity(FRESH); } },
      );
      assert.deepEqual(out.value, alice);
      assert.deepEqual([asked[0]?.tool, asked[0]?.audience, asked[0]?.reason, asked[0]?.parked], ["crm_whoami", "crm", "credential_expired", undefined]);
    });

    it("refusals carry their reason and no token", async () => {
      const done = await client.run("return 1;");
      assert.deepEqual(await reasonOf(client.setIdentity(done.chain.id, new Identity(FRESH))), [409, "chain_finished"]);
      assert.deepEqual(await reasonOf(client.setIdentity("ch_nosuchchain", new Identity(FRESH))), [404, "chain_not_found"]);
      for (const p of [client.setIdentity(done.chain.id, new Identity(FRESH, { subjectTokenType: "no_such_type" })), client.submit(whoami, { identity: { subject_token: SUBJECT + "\n" } })]) {
        const err = await p.catch((x: unknown) => x);
        assert.ok(err instanceof AirlockError);
        assert.deepEqual([err.status, err.reason], [400, "invalid_request"]);
        assertNoToken(err, err.message);
      }
    });
  });
}
