// Live tests of caller tools against one real `airlock serve` (approval
// mode queue; client_test.go starts it): concurrent calls, errors,
// timeouts, and every refused answer by its reason code.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { Airlock, codeModeTool, type PendingCall, type Tools } from "../src/index.js";
import { env, reasonOf } from "./env.js";

const e = env();
const agent = new Airlock({ baseUrl: e.url, apiKey: e.submitKey });
const approver = new Airlock({ baseUrl: e.url, apiKey: e.approverKey });
const other = new Airlock({ baseUrl: e.url, apiKey: e.otherKey });
const keyless = new Airlock({ baseUrl: e.url });

const object = { type: "object", properties: { email: { type: "string" } }, required: ["email"], additionalProperties: false };

describe("live: caller tools", () => {
  it("runs two caller tools called at once, their handlers concurrently", async () => {
    // Each handler waits until both have started: answered one after the
    // other, they would never finish (and the calls would time out).
    let started = 0;
    let release!: () => void;
    const both = new Promise<void>((r) => { release = r; });
    const barrier = async () => {
      if (++started === 2) release();
      await both;
    };
    const tools: Tools = {
      lookup_customer: {
        description: "Find a customer by email.",
        schema: object,
        handler: async ({ email }: { email: string }) => { await barrier(); return { id: 7, email }; },
      },
      open_tickets: {
        description: "A customer's open tickets.",
        schema: object,
        handler: async () => { await barrier(); return [{ id: 1 }, { id: 2 }]; },
      },
    };
    const out = await agent.run<{ id: number; tickets: number }>(
      `const [c, t] = await Promise.all([tools.lookup_customer({email: "a@example.com"}), tools.open_tickets({email: "a@example.com"})]);
       return {id: c.id, tickets: t.length};`,
      { tools, policy: { call_timeout: "20s", approval_timeout: "10s" } },
    );
    assert.deepEqual(out.value, { id: 7, tickets: 2 });
    assert.deepEqual(out.result.trace.map((r) => [r.tool, r.status]).sort(), [["lookup_customer", "ok"], ["open_tickets", "ok"]]);
  });

  it("a handler that throws is a ToolError tool_error with its message in the script", async () => {
    const out = await agent.run<string[]>(
      `try { await tools.flaky({email: "x@example.com"}); } catch (e) { return [e.reason, e.message]; }`,
      { tools: { flaky: { description: "Fails.", schema: object, handler: () => { throw new Error("upstream 503"); } } } },
    );
    assert.equal(out.value[0], "tool_error");
    assert.match(out.value[1]!, /upstream 503/);
  });

  it("a caller tool that never answers fails with call_timeout", async () => {
    let aborted = false;
    const out = await agent.run<string>(
      `try { await tools.hang({email: "x@example.com"}); return "answered"; } catch (e) { return e.reason; }`,
      {
        policy: { call_timeout: "1s", approval_timeout: "500ms" },
        tools: {
          hang: {
            description: "Never answers.", schema: object,
            handler: (_a, ctx) => new Promise((_, reject) => ctx.signal.addEventListener("abort", () => { aborted = true; reject(ctx.signal.reason); })),
          },
        },
      },
    );
    assert.equal(out.value, "call_timeout");
    assert.ok(aborted, "the handler's signal aborted at the call's deadline");
  });

  it("a risky caller tool waits for an approval decided through the client", async () => {
    const out = await agent.run<string>(`return await tools.wire_money({email: "cfo@example.com"});`, {
      approver,
      onApproval: (req) => (req.tool === "wire_money" ? "approve" : undefined),
      tools: { wire_money: { description: "Moves money.", schema: object, risk: "HIGH", handler: ({ email }: { email: string }) => `sent to ${email}` } },
    });
    assert.equal(out.value, "sent to cfo@example.com");
  });

  it("refuses every bad answer by its reason code", async () => {
    const tools: Tools = {
      plain: { description: "Plain.", schema: object, handler: () => 0 },
      typed: { description: "Typed.", schema: object, outputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] }, handler: () => 0 },
    };
    const chain = await agent.submit(
      `const [a, b] = await Promise.all([tools.plain({email: "p@example.com"}), tools.typed({email: "t@example.com"})]); return [a, b];`,
      { tools, policy: { call_timeout: "30s", approval_timeout: "10s" } },
    );
    const calls = await until(async () => { const c = await agent.calls.list(chain.id); return c.length === 2 ? c : undefined; });
    const plain = calls.find((c) => c.tool === "plain")!;
    const typed = calls.find((c) => c.tool === "typed")!;
    assert.deepEqual(plain.args, { email: "p@example.com" });
    assert.equal(plain.chain_id, chain.id);
    assert.ok((await agent.calls.list()).some((c) => c.id === plain.id), "the tenant's list has it");
    assert.deepEqual((await agent.calls.get(plain.id)).args_hash, plain.args_hash);

    assert.deepEqual(await reasonOf(agent.calls.answer({ id: plain.id, args_hash: "0".repeat(64) }, { result: 1 })), [409, "args_mismatch"]);
    assert.deepEqual(await reasonOf(other.calls.answer(plain, { result: 1 })), [404, "call_not_found"]);
    assert.deepEqual(await reasonOf(other.calls.get(plain.id)), [404, "call_not_found"]);
    assert.deepEqual(await reasonOf(keyless.calls.answer(plain, { result: 1 })), [401, "unauthenticated"]);
    assert.deepEqual(await reasonOf(approver.calls.answer(plain, { result: 1 })), [403, "forbidden_role"]);
    // Bodies the client never sends, posted raw.
    for (const body of [{ args_hash: plain.args_hash, result: 1, error: "both" }, { args_hash: plain.args_hash }, { args_hash: plain.args_hash, error: "" }, { result: 1 }]) {
      assert.deepEqual(await rawPost(`/v1/calls/${encodeURIComponent(plain.id)}`, body), [400, "invalid_request"], JSON.stringify(body));
    }
    assert.deepEqual(await reasonOf(agent.calls.answer(plain, { result: "x".repeat(4096) })), [413, "result_too_large"]);
    assert.deepEqual(await reasonOf(agent.calls.answer(typed, { result: { n: "not a number" } })), [422, "output_schema_mismatch"]);
    assert.deepEqual(await reasonOf(agent.calls.answer({ id: "no-such-call", args_hash: plain.args_hash }, { result: 1 })), [404, "call_not_found"]);

    // Every refusal left the calls waiting: the right answers are taken.
    const taken = await agent.calls.answer(plain, { result: { ok: 1 } });
    assert.equal(taken.call.id, plain.id);
    assert.deepEqual(await reasonOf(agent.calls.answer(plain, { result: 2 })), [409, "already_answered"]);
    await agent.calls.answer(typed, { result: { n: 5 } });
    const done = await agent.wait(chain.id);
    assert.deepEqual(done.result?.value, [{ ok: 1 }, { n: 5 }]);
  });

  it("refuses a late answer with call_expired", async () => {
    const chain = await agent.submit(
      `try { await tools.late({email: "l@example.com"}); } catch (e) { return e.reason; }`,
      { tools: { late: { description: "Late.", schema: object, handler: () => 0 } }, policy: { call_timeout: "1s", approval_timeout: "500ms" } },
    );
    const [call] = await until(async () => { const c = await agent.calls.list(chain.id); return c.length === 1 ? c : undefined; });
    const done = await agent.wait(chain.id);
    assert.equal(done.result?.value, "call_timeout");
    assert.deepEqual(await reasonOf(agent.calls.answer(call as PendingCall, { result: 1 })), [410, "call_expired"]);
  });

  it("declares caller tools beside the selected configured ones", async () => {
    const dts = await agent.declarations(
      { lookup_customer: { description: "Find a customer by email.", schema: object, handler: () => 0 } },
      { configuredTools: ["kv_get"] },
    );
    assert.match(dts, /lookup_customer/);
    assert.match(dts, /kv_get/);
    assert.doesNotMatch(dts, /send_message/);
    await assert.rejects(agent.declarations({ "bad name": { description: "", schema: {}, handler: () => 0 } }), TypeError);
    assert.deepEqual(await rawPost("/v1/tools.d.ts", { caller_tools: [{ name: "Bad Name", description: "x", input_schema: { type: "object" } }] }), [400, "invalid_caller_tools"]);
    assert.deepEqual(await reasonOf(agent.submit("return 1", { tools: { kv_get: { description: "clash", schema: object, handler: () => 0 } } })), [400, "invalid_caller_tools"]);
  });

  it("runs a model's script through the code-mode tool", async () => {
    const cm = await codeModeTool(agent, {
      lookup_customer: { description: "Find a customer by email.", schema: object, handler: ({ email }: { email: string }) => ({ id: 9, email }) },
    }, { configuredTools: ["kv_get"] });
    assert.match(cm.description, /lookup_customer/);
    const r = await cm.execute({ script: `const c = await tools.lookup_customer({email: "m@example.com"}); return c.id;` });
    assert.deepEqual(r, { ok: true, value: 9, logs: [] });
    const bad = await cm.execute({ script: `await tools.send_message({to: "a@example.com", text: "x"});` });
    assert.equal(bad.ok, false);
  });
});

/** rawPost posts body to path with the submit key, past the client's own checks, and returns [status, reason]. */
async function rawPost(path: string, body: unknown): Promise<[number, string]> {
  const resp = await fetch(`${e.url}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${e.submitKey}` },
    body: JSON.stringify(body),
  });
  const got = (await resp.json()) as { error?: { reason?: string } };
  return [resp.status, got.error?.reason ?? ""];
}

async function until<T>(f: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error("until: timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}
