// Live tests against one real `airlock serve` (approval mode queue), which
// client_test.go starts with internal/servetest and names in AIRLOCK_TEST_*
// variables: approvals, denials, artifacts, cancellation, the event stream
// and every refusal by its reason code.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";

import { Airlock, AirlockError, ChainError, type ApprovalRequest } from "../src/index.js";
import { env, reasonOf } from "./env.js";

const e = env();
const agent = new Airlock({ baseUrl: e.url, apiKey: e.submitKey });
const approver = new Airlock({ baseUrl: e.url, apiKey: e.approverKey });
const owner = new Airlock({ baseUrl: e.url, apiKey: e.key });
const other = new Airlock({ baseUrl: e.url, apiKey: e.otherKey });
const keyless = new Airlock({ baseUrl: e.url });

describe("live: approvals", () => {
  it("an approval is listed and decided through the client, and the call runs", async () => {
    const seen: ApprovalRequest[] = [];
    const out = await agent.run<{ id: string }>(
      `const r = await tools.send_message({to: "ops@example.com", text: "deploy?"}); return r;`,
      {
        approver,
        onApproval: async (req) => {
          const listed = await approver.approvals.list();
          assert.ok(listed.some((a) => a.id === req.id), "the request is listed");
          assert.deepEqual((await approver.approvals.get(req.id)).args, { text: "deploy?", to: "ops@example.com" });
          seen.push(req);
          return "approve" as const;
        },
      },
    );
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.tool, "send_message");
    assert.equal(out.chain.status, "ok");
    assert.equal(out.result.trace[0]!.status, "ok");
    assert.equal(typeof out.value.id, "string");
  });

  it("a denied call throws a ToolError with reason approval_denied in the script", async () => {
    const out = await agent.run<string>(
      `try { await tools.send_message({to: "ops@example.com", text: "rm -rf"}); return "sent"; } catch (e) { return e.reason; }`,
      { approver, onApproval: () => "deny" },
    );
    assert.equal(out.value, "approval_denied");
    assert.equal(out.result.trace[0]!.reason, "approval_denied");
  });

  it("refuses a decision by a submit key, on other arguments, and a second decision", async () => {
    let chainId = "";
    const ended = agent.run(`return await tools.send_message({to: "a@example.com", text: "x"});`, { onSubmitted: (c) => { chainId = c.id; } })
      .catch((x: unknown) => x);
    const req = await until(async () => (await approver.approvals.list()).find((a) => a.session_id === chainId));
    assert.deepEqual(await reasonOf(agent.approvals.decide(req, "approve")), [403, "forbidden_role"]);
    assert.deepEqual(await reasonOf(approver.approvals.decide({ id: req.id, args_hash: "0".repeat(64) }, "approve")), [409, "args_mismatch"]);
    assert.deepEqual(await reasonOf(other.approvals.decide(req, "approve")), [404, "approval_not_found"]);
    const outcome = await approver.approvals.decide(req, "deny");
    assert.equal(outcome.decision, "denied");
    const again = await approver.approvals.decide(req, "approve").catch((err: unknown) => err);
    assert.ok(again instanceof AirlockError);
    assert.deepEqual([again.status, again.reason, again.decision], [409, "already_decided", "denied"]);
    const err = await ended;
    assert.ok(err instanceof ChainError, String(err)); // the script did not catch the denial
    assert.equal(err.reason, "script_error");
  });
});

describe("live: chains", () => {
  it("downloads an artifact, bound to its tenant", async () => {
    const out = await agent.run<{ $artifact: string; size: number }>(`return await tools.make_csv({rows: 5000, seed: 3});`);
    const ref = out.value;
    assert.match(ref.$artifact, /^blob_/);
    const d = await agent.artifact(ref);
    assert.equal(d.data.length, ref.size);
    assert.match(new TextDecoder().decode(d.data.slice(0, 40)), /^[a-z_,]+\n/);
    assert.equal(d.etag, createHash("sha256").update(d.data).digest("hex"));
    assert.deepEqual(await reasonOf(other.artifact(ref)), [404, "artifact_not_found"]);
  });

  it("follows the event stream to done and waits for a chain", async () => {
    const c = await agent.submit(`await tools.kv_get({key: "k"}); console.log("hi"); return 42;`);
    assert.equal(c.status, "running");
    const names: string[] = [];
    for await (const ev of agent.events(c.id)) names.push(ev.event);
    assert.ok(names.includes("tool_call") && names.includes("tool_result") && names.includes("log"), names.join(","));
    assert.equal(names.at(-1), "done");
    const done = await agent.wait(c.id);
    assert.equal(done.result?.value, 42);
    const again: string[] = [];
    for await (const ev of agent.events(c.id, { lastEventId: "1" })) again.push(ev.event);
    assert.deepEqual(again, names.slice(1), "Last-Event-ID resumes after that event");
  });

  it("cancels a chain through an AbortSignal", async () => {
    const ctl = new AbortController();
    let id = "";
    const p = agent.run(`await tools.slow({ms: 30000}); return "late";`, { signal: ctl.signal, onSubmitted: (c) => { id = c.id; } });
    await until(async () => (id !== "" && (await agent.chain(id)).status === "running" ? true : undefined));
    ctl.abort(new DOMException("enough", "AbortError"));
    const err = await p.catch((x: unknown) => x);
    assert.ok(err instanceof DOMException && err.name === "AbortError", String(err));
    const c = await until(async () => { const v = await agent.chain(id); return v.finished ? v : undefined; });
    assert.equal(c.status, "cancelled");
  });

  it("throws ChainError for a script that fails, and invalid_script with its place", async () => {
    const err = await agent.run(`throw new Error("nope");`).catch((x: unknown) => x);
    assert.ok(err instanceof ChainError);
    assert.equal(err.reason, "script_error");
    const bad = await agent.submit("return (;").catch((x: unknown) => x);
    assert.ok(bad instanceof AirlockError);
    assert.equal(bad.reason, "invalid_script");
    assert.equal(bad.line, 1);
    assert.equal(typeof bad.column, "number");
  });

  it("lists the configured tools and their declarations", async () => {
    const tools = await agent.tools();
    assert.ok(tools.some((t) => t.name === "send_message" && t.risk === "HIGH"));
    assert.match(await agent.declarations(), /send_message/);
  });
});

describe("live: refusals", () => {
  it("refuses a keyless request, another tenant's key, and the wrong role", async () => {
    const c = await agent.submit(`return 1;`);
    assert.deepEqual(await reasonOf(keyless.chain(c.id)), [401, "unauthenticated"]);
    assert.deepEqual(await reasonOf(new Airlock({ baseUrl: e.url, apiKey: "not-a-configured-key-at-all" }).chains()), [401, "unauthenticated"]);
    assert.deepEqual(await reasonOf(other.chain(c.id)), [404, "chain_not_found"]);
    assert.deepEqual(await reasonOf(other.cancel(c.id)), [404, "chain_not_found"]);
    assert.deepEqual(await reasonOf(approver.submit("return 1")), [403, "forbidden_role"]);
    await owner.wait(c.id);
    assert.deepEqual(await reasonOf(owner.cancel(c.id)), [409, "chain_finished"]);
    assert.deepEqual(await reasonOf(agent.submit("return 1", { policy: { call_timeout: "100h" } })), [400, "above_operator_limit"]);
  });
});

async function until<T>(f: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error("until: timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}
