// Live tests against a fleet of two `airlock serve` processes sharing one
// bucket, approval mode park (client_test.go starts it): a chain parked on
// one process is waited for, decided and resumed through the other.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { Airlock } from "../src/index.js";
import { env, reasonOf } from "./env.js";

const e = env();
assert.equal(e.mode, "park");
assert.equal(e.urls.length, 2);
const [urlA, urlB] = e.urls as [string, string];
const agentA = new Airlock({ baseUrl: urlA, apiKey: e.submitKey });
const agentB = new Airlock({ baseUrl: urlB, apiKey: e.submitKey });
const approverB = new Airlock({ baseUrl: urlB, apiKey: e.approverKey });
const otherB = new Airlock({ baseUrl: urlB, apiKey: e.otherKey });

describe("live fleet: parked chains", () => {
  it("a chain parked on one process is resumed through the other", async () => {
    const c = await agentA.submit(`const r = await tools.send_message({to: "ops@example.com", text: "parked"}); return r.to;`);
    const parked = await agentB.waitParked(c.id);
    assert.equal(parked.status, "parked");
    assert.equal(parked.pending?.length, 1);
    assert.equal(parked.pending?.[0]?.tool, "send_message");
    assert.deepEqual(await reasonOf(otherB.chain(c.id)), [404, "chain_not_found"]);
    const out = await agentB.resume<string>(c.id, { approver: approverB, onApproval: (req) => (req.tool === "send_message" ? "approve" : undefined) });
    assert.equal(out.value, "ops@example.com");
    assert.equal((await agentA.chain(c.id)).status, "ok", "the first process reads the same end");
  });

  it("run follows its chain across the park while the decision is taken on the other process", async () => {
    const out = await agentA.run<string>(
      `try { await tools.send_message({to: "x@example.com", text: "no"}); return "sent"; } catch (e) { return e.reason; }`,
      { approver: approverB, onApproval: () => "deny" },
    );
    assert.equal(out.value, "approval_denied");
  });

  it("a chain parked on a caller tool's call is answered and resumed through the other process", async () => {
    const tools = {
      lookup_customer: {
        description: "Find a customer by email.",
        schema: { type: "object", properties: { email: { type: "string" } }, required: ["email"] },
        handler: ({ email }: { email: string }) => ({ id: 11, email }),
      },
    };
    const c = await agentA.submit(`const r = await tools.lookup_customer({email: "f@example.com"}); return r.id;`, { tools });
    const parked = await agentB.waitParked(c.id);
    assert.equal(parked.status, "parked");
    const entry = parked.pending?.[0] as { kind?: string; tool?: string } | undefined;
    assert.deepEqual([entry?.kind, entry?.tool], ["call", "lookup_customer"]);
    const out = await agentB.resume<number>(c.id, { tools });
    assert.equal(out.value, 11);
    assert.equal((await agentA.chain(c.id)).status, "ok");
  });

  it("run answers its caller tools across parks", async () => {
    const out = await agentA.run<number[]>(
      `return await Promise.all([tools.n({i: 1}), tools.n({i: 2})]);`,
      { tools: { n: { description: "Echo i.", schema: { type: "object" }, handler: ({ i }: { i: number }) => i * 10 } } },
    );
    assert.deepEqual(out.value, [10, 20]);
  });

  it("a parked chain is cancelled from the other process", async () => {
    const c = await agentA.submit(`await tools.send_message({to: "ops@example.com", text: "never"}); return 1;`);
    await agentB.waitParked(c.id);
    const cancelled = await agentB.cancel(c.id);
    assert.equal(cancelled.status, "cancelled");
    assert.deepEqual(await reasonOf(agentA.cancel(c.id)), [409, "chain_finished"]);
  });
});
