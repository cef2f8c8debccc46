// Unit tests of the client against the stub (stub.ts) and of the SSE parser.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { inspect } from "node:util";

import { Airlock, AirlockError, ChainError, codeModeTool, Identity, parseEvents, type CredentialRequiredEvent, type RawEvent, type StreamState } from "../src/index.js";
import { startStub, type StubOptions } from "./stub.js";

async function withStub(opts: StubOptions, f: (client: Airlock, stub: Awaited<ReturnType<typeof startStub>>) => Promise<void>) {
  const stub = await startStub(opts);
  try {
    await f(new Airlock({ baseUrl: stub.url + "/", apiKey: "stub-key" }), stub);
  } finally {
    await stub.close();
  }
}

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(ctl) {
      for (const c of chunks) ctl.enqueue(enc.encode(c));
      ctl.close();
    },
  });
}

async function collect(chunks: string[], state: StreamState = { lastEventId: "" }): Promise<RawEvent[]> {
  const out: RawEvent[] = [];
  for await (const e of parseEvents(streamOf(chunks), state)) out.push(e);
  return out;
}

describe("parseEvents", () => {
  it("splits events on LF, CRLF and CR line ends, also across chunks", async () => {
    const evs = await collect(["id: 1\nevent: a\ndata: {\"x\":1}\n\n", "id: 2\r", "\nevent: b\r\ndata: 2\r\n\r", "\nid: 3\revent: c\rdata: 3\r\r"]);
    assert.deepEqual(evs.map((e) => [e.lastEventId, e.event, e.data]), [["1", "a", "{\"x\":1}"], ["2", "b", "2"], ["3", "c", "3"]]);
  });
  it("joins data lines, skips comments, defaults the name to message, keeps the last id", async () => {
    const state: StreamState = { lastEventId: "7" };
    const evs = await collect([": keep-alive\n\n", "data: a\ndata:b\n\n", "id: 9\n\n", "retry: 1500\ndata\n\n"], state);
    assert.deepEqual(evs.map((e) => [e.event, e.data, e.lastEventId]), [["message", "a\nb", "7"], ["message", "", "9"]]);
    assert.equal(state.lastEventId, "9");
    assert.equal(state.retry, 1500);
  });
  it("drops an event cut off before its blank line, and decodes UTF-8 split across chunks", async () => {
    const bytes = new TextEncoder().encode("data: é€\n\ndata: lost");
    const stream = new ReadableStream<Uint8Array>({
      start(ctl) {
        ctl.enqueue(bytes.slice(0, 8)); // inside "€"
        ctl.enqueue(bytes.slice(8));
        ctl.close();
      },
    });
    const out: string[] = [];
    for await (const e of parseEvents(stream, { lastEventId: "" })) out.push(e.data);
    assert.deepEqual(out, ["é€"]);
  });
});

describe("Airlock", () => {
  it("refuses a missing baseUrl", () => {
    assert.throws(() => new Airlock({} as never), /baseUrl is required/);
  });

  it("runs a chain whose two caller tools are called at once and answered concurrently", async () => {
    await withStub({ calls: [{ tool: "a", args: { n: 1 } }, { tool: "b", args: { n: 2 } }] }, async (client, stub) => {
      let running = 0;
      let peak = 0;
      const slow = async (args: { n: number }) => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 100));
        running--;
        return { doubled: args.n * 2 };
      };
      const out = await client.run<{ tool: string; ok: boolean; value: unknown }[]>("stub", {
        tools: {
          a: { description: "A", schema: { type: "object" }, handler: slow },
          b: { description: "B", schema: { type: "object" }, handler: slow },
        },
      });
      assert.equal(peak, 2, "both handlers ran at the same time");
      assert.deepEqual(out.value.map((v) => v.value), [{ doubled: 2 }, { doubled: 4 }]);
      const body = stub.chains.get(out.id)!.body;
      assert.deepEqual(body.caller_tools, [
        { name: "a", description: "A", input_schema: { type: "object" } },
        { name: "b", description: "B", input_schema: { type: "object" } },
      ]);
      assert.ok(stub.requests.includes("POST /v1/chains"));
    });
  });

  it("answers a throwing handler with its message and an undefined result with null", async () => {
    await withStub({ calls: [{ tool: "boom", args: {} }, { tool: "nothing", args: {} }] }, async (client, stub) => {
      await client.run("stub", {
        tools: {
          boom: { description: "", schema: {}, handler: () => { throw new Error("upstream said no"); } },
          nothing: { description: "", schema: {}, handler: () => undefined },
        },
      });
      assert.deepEqual(stub.answers.find((a) => a.tool === "boom"), { tool: "boom", error: "upstream said no" });
      assert.deepEqual(stub.answers.find((a) => a.tool === "nothing"), { tool: "nothing", result: null });
    });
  });

  it("tells the script why when the server refuses a result (output_schema_mismatch, result_too_large)", async () => {
    await withStub({ calls: [{ tool: "typed", args: {} }, { tool: "big", args: {} }], maxResultBytes: 100 }, async (client, stub) => {
      await client.run("stub", {
        tools: {
          typed: { description: "", schema: {}, outputSchema: { type: "number" }, handler: () => "not a number" },
          big: { description: "", schema: {}, handler: () => "x".repeat(200) },
        },
      });
      assert.match(stub.answers.find((a) => a.tool === "typed")!.error!, /output_schema_mismatch/);
      assert.match(stub.answers.find((a) => a.tool === "big")!.error!, /result_too_large/);
    });
  });

  it("refuses every bad answer with its reason code", async () => {
    await withStub({ calls: [{ tool: "t", args: { q: 1 } }] }, async (client, stub) => {
      const chain = await client.submit("stub", { tools: { t: { description: "", schema: {}, handler: () => 1 } } });
      let [call] = await waitFor(() => stub.chains.get(chain.id)!.calls);
      const reasonOf = async (p: Promise<unknown>) => {
        const err = await p.then(() => undefined, (e: unknown) => e);
        assert.ok(err instanceof AirlockError, `expected an AirlockError, got ${err}`);
        return [err.status, err.reason];
      };
      assert.deepEqual(await reasonOf(client.calls.answer({ id: call!.id, args_hash: "0".repeat(64) }, { result: 1 })), [409, "args_mismatch"]);
      assert.deepEqual(await reasonOf(client.calls.answer({ id: "nope", args_hash: call!.args_hash }, { result: 1 })), [404, "call_not_found"]);
      await client.calls.answer(call!, { result: 1 });
      assert.deepEqual(await reasonOf(client.calls.answer(call!, { result: 2 })), [409, "already_answered"]);
      assert.equal((await client.wait(chain.id)).status, "ok");
      assert.deepEqual(await reasonOf(new Airlock({ baseUrl: stub.url, apiKey: "wrong" }).chain(chain.id)), [401, "unauthenticated"]);
      assert.deepEqual(await reasonOf(client.cancel(chain.id)), [409, "chain_finished"]);
    });
  });

  it("carries invalid_script's line and column, and reports answers that are not the API's", async () => {
    await withStub({}, async (client) => {
      const err = await client.submit("syntax error").catch((e: unknown) => e);
      assert.ok(err instanceof AirlockError);
      assert.deepEqual([err.status, err.reason, err.line, err.column], [400, "invalid_script", 2, 5]);
      const html = await client.artifact("blob_notjson").catch((e: unknown) => e);
      assert.ok(html instanceof AirlockError);
      assert.deepEqual([html.status, html.reason], [500, "unexpected_response"]);
    });
    const down = await new Airlock({ baseUrl: "http://127.0.0.1:1" }).chain("x").catch((e: unknown) => e);
    assert.ok(down instanceof AirlockError);
    assert.deepEqual([down.status, down.reason], [0, "network_error"]);
  });

  it("reopens a dropped event stream with Last-Event-ID and loses or repeats nothing", async () => {
    await withStub({ calls: [{ tool: "a", args: {} }, { tool: "b", args: {} }], dropStreamAfter: 1 }, async (client, stub) => {
      const out = await client.run("stub", {
        tools: {
          a: { description: "", schema: {}, handler: () => "A" },
          b: { description: "", schema: {}, handler: () => "B" },
        },
      });
      assert.equal(out.chain.status, "ok");
      assert.deepEqual(stub.lastEventIds, [undefined, "1"]);
      assert.equal(stub.answers.length, 2, "each call answered once");
    });
  });

  it("gives up waiting for a park with wait_timeout", async () => {
    await withStub({ calls: [{ tool: "hang", args: {} }] }, async (client) => {
      const c = await client.submit("stub");
      const err = await client.waitParked(c.id, { timeoutMs: 200, intervalMs: 20 }).catch((x: unknown) => x);
      assert.ok(err instanceof AirlockError);
      assert.deepEqual([err.status, err.reason], [0, "wait_timeout"]);
      await client.cancel(c.id);
    });
  });

  it("throws ChainError with the result's reason for a chain that did not end ok", async () => {
    await withStub({ endStatus: "error" }, async (client) => {
      const err = await client.run("stub").catch((e: unknown) => e);
      assert.ok(err instanceof ChainError);
      assert.equal(err.reason, "script_error");
      assert.equal(err.status, "error");
    });
  });

  it("cancels the chain when the run's signal aborts", async () => {
    await withStub({ calls: [{ tool: "hang", args: {} }] }, async (client, stub) => {
      const ctl = new AbortController();
      let handlerSignal: AbortSignal | undefined;
      const p = client.run("stub", {
        signal: ctl.signal,
        tools: {
          hang: {
            description: "", schema: {},
            handler: (_args, ctx) => {
              handlerSignal = ctx.signal;
              ctl.abort(new DOMException("stop", "AbortError"));
              return new Promise(() => {});
            },
          },
        },
      });
      const err = await p.catch((e: unknown) => e);
      assert.ok(err instanceof DOMException && err.name === "AbortError", String(err));
      assert.ok(handlerSignal?.aborted, "the handler's signal aborted too");
      assert.ok(stub.requests.some((r) => r.startsWith("DELETE /v1/chains/")), stub.requests.join("\n"));
      assert.equal([...stub.chains.values()][0]!.status, "cancelled");
    });
  });
});

// Tokens of the identity tests: no error text, string or inspection may hold them.
const TOKEN = "subj~user-token-0123456789";
const ACTOR = "actor~agent-token-0123456789";
const FRESH = "subj~fresh-token-0123456789";

function assertNoToken(...texts: unknown[]): void {
  for (const t of texts) {
    const s = typeof t === "string" ? t : `${String(t)} ${inspect(t, { depth: 5, showHidden: true })} ${JSON.stringify(t) ?? ""}`;
    for (const tok of [TOKEN, ACTOR, FRESH]) assert.ok(!s.includes(tok), `a token in: ${s.replaceAll(tok, "<TOKEN>")}`);
  }
}

describe("delegated identities", () => {
  it("sends the identity on submit, and never shows a token in an Identity's string, JSON or inspection", async () => {
    await withStub({}, async (client, stub) => {
      const a = await client.submit("stub", { identity: new Identity(TOKEN, { subjectTokenType: "jwt", actor: ACTOR }) });
      const b = await client.submit("stub", { identity: { subject_token: TOKEN } });
      const c = await client.submit("stub");
      assert.deepEqual(stub.chains.get(a.id)!.body.identity, { subject_token: TOKEN, subject_token_type: "jwt", actor: ACTOR });
      assert.deepEqual(stub.chains.get(b.id)!.body.identity, { subject_token: TOKEN });
      assert.equal(stub.chains.get(c.id)!.body.identity, undefined);
    });
    const id = new Identity(TOKEN, { actor: ACTOR });
    assertNoToken(id, String(id), `${id}`, JSON.stringify({ id }), inspect({ id }));
    assert.equal(id.subjectToken, TOKEN);
    for (const bad of [{ subject_token: 5 }, { subject_token: "" }, { subject_token: TOKEN, token: FRESH }, { subject_token: TOKEN, actor: 7 }, [TOKEN], TOKEN]) {
      const err = (() => { try { Identity.of(bad as never); } catch (e) { return e; } })();
      assert.ok(err instanceof TypeError, String(err));
      assertNoToken(err, (err as Error).message);
    }
  });

  it("setIdentity posts it, and every refusal keeps its reason and holds no token", async () => {
    const refusals: [number, string][] = [[400, "invalid_request"], [404, "chain_not_found"], [409, "chain_finished"], [409, "chain_parked"], [409, "running_elsewhere"]];
    await withStub({ credential: { refusals: [...refusals] } }, async (client, stub) => {
      const chain = await client.submit("stub");
      for (const [status, reason] of refusals) {
        const err = await client.setIdentity(chain.id, new Identity(FRESH, { actor: ACTOR })).catch((e: unknown) => e);
        assert.ok(err instanceof AirlockError, String(err));
        assert.deepEqual([err.status, err.reason, err.message], [status, reason, "refused the identity [REDACTED]"]);
        assertNoToken(err, err.message, err.stack);
      }
      assert.deepEqual(stub.identities[0], { subject_token: FRESH, actor: ACTOR });
    });
    await withStub({ credential: {} }, async (client, stub) => {
      const chain = await client.submit("stub");
      assert.equal(await client.setIdentity(chain.id, { subject_token: FRESH, subject_token_type: "id_token" }), undefined);
      assert.deepEqual(stub.identities, [{ subject_token: FRESH, subject_token_type: "id_token" }]);
      assert.equal((await client.wait(chain.id)).result?.value, FRESH);
    });
    // Answers that are not the API's, and a server that echoes the token of a submission.
    // The fake server echoes every token the request carried (T in its answer).
    const fake = (status: number, body: string) => new Airlock({
      baseUrl: "http://stub.invalid",
      fetch: async (_url, init) => {
        const sent = JSON.parse(String(init?.body)) as { subject_token?: string; identity?: { subject_token: string } };
        const tok = sent.subject_token ?? sent.identity?.subject_token ?? "";
        return new Response(body.replaceAll("T", tok), { status, headers: { "Content-Type": "application/json" } });
      },
    });
    for (const [status, body] of [[200, JSON.stringify({ token: "T" })], [502, "<html>T</html>"], [400, JSON.stringify({ error: { reason: "invalid_request", message: "bad T" } })]] as const) {
      const err = await fake(status, body).setIdentity("ch_1", new Identity(FRESH)).catch((e: unknown) => e);
      assert.ok(err instanceof AirlockError);
      assertNoToken(err, err.message);
      const sub = await fake(status, body).submit("x", { identity: new Identity(TOKEN) }).catch((e: unknown) => e);
      assert.ok(sub instanceof AirlockError);
      assertNoToken(sub, sub.message);
    }
    const down = await new Airlock({ baseUrl: "http://127.0.0.1:1" }).setIdentity("ch_1", new Identity(FRESH)).catch((e: unknown) => e);
    assert.ok(down instanceof AirlockError);
    assert.equal(down.reason, "network_error");
    assertNoToken(down, down.message);
  });

  it("run asks onCredentialRequired once per refused call and hands the running chain its answer", async () => {
    await withStub({ credential: {} }, async (client, stub) => {
      const asked: CredentialRequiredEvent[] = [];
      const out = await client.run("stub", { identity: new Identity(TOKEN), onCredentialRequired: (req) => { asked.push(req); return new Identity(FRESH); } });
      assert.equal(out.value, FRESH);
      assert.deepEqual(asked, [{ seq: 1, tool: "crm_lookup", audience: "crm", reason: "credential_expired" }]);
      assert.deepEqual(stub.identities, [{ subject_token: FRESH }]);
    });
  });

  it("resume hands a parked chain a fresh identity, asked once for its pending entry and its event", async () => {
    await withStub({ credential: { parked: true } }, async (client, stub) => {
      const chain = await client.submit("stub");
      const parked = await client.waitParked(chain.id, { intervalMs: 10 });
      assert.deepEqual(parked.pending?.map((p) => [p.kind, p.rule]), [["credential", "credential_unavailable"]]);
      const asked: CredentialRequiredEvent[] = [];
      const out = await client.resume(chain.id, { onCredentialRequired: async (req) => { asked.push(req); return { subject_token: FRESH }; } });
      assert.equal(out.value, FRESH);
      // The chain was read parked before its stream named the audience.
      assert.deepEqual(asked, [{ seq: 1, tool: "crm_lookup", audience: "", reason: "credential_unavailable", parked: true }]);
      assert.equal(stub.identities.length, 1);
    });
  });

  it("asks again when the call parks anew after a fresh identity was refused too", async () => {
    await withStub({ credential: { parked: true, parkAgain: true } }, async (client, stub) => {
      const asked: CredentialRequiredEvent[] = [];
      const out = await client.run("stub", { onCredentialRequired: (req) => { asked.push(req); return new Identity(`${FRESH}${asked.length}`); } });
      assert.equal(out.value, `${FRESH}2`);
      assert.deepEqual(asked.map((r) => [r.seq, r.parked]), [[1, true], [1, true]]);
      assert.deepEqual(stub.identities, [{ subject_token: `${FRESH}1` }, { subject_token: `${FRESH}2` }]);
    });
  });

  it("leaves a parked chain parked without a handler, or when the handler returns undefined", async () => {
    await withStub({ credential: { parked: true } }, async (client, stub) => {
      for (const opts of [{}, { onCredentialRequired: () => undefined }]) {
        const stop = new AbortController();
        setTimeout(() => stop.abort(new Error("stop")), 300);
        const err = await client.run("stub", { ...opts, signal: stop.signal }).catch((e: unknown) => e);
        assert.equal((err as Error).message, "stop");
      }
      assert.deepEqual(stub.identities, []);
    });
  });

  it("drops the refusals that leave nothing to do, and fails the run on others without a token", async () => {
    for (const [parked, refusal] of [[false, [409, "chain_finished"]], [false, [409, "chain_parked"]], [true, [409, "running_elsewhere"]]] as const) {
      await withStub({ credential: { parked, refusals: [[...refusal]] } }, async (client) => {
        if (refusal[1] === "running_elsewhere") {
          // Another process took the parked chain up, and ends it there.
          let id = "";
          const out = client.run("stub", { onSubmitted: (c) => { id = c.id; }, onCredentialRequired: () => new Identity(FRESH) }).catch((e: unknown) => e);
          await new Promise((r) => setTimeout(r, 300));
          await client.cancel(id);
          const err = await out;
          assert.ok(err instanceof ChainError && err.status === "cancelled", String(err));
          return;
        }
        const out = await client.run("stub", { onCredentialRequired: () => new Identity(FRESH) });
        assert.equal(out.value, "elsewhere");
      });
    }
    for (const refusal of [[409, "running_elsewhere"], [400, "invalid_request"]] as [number, string][]) {
      await withStub({ credential: { refusals: [refusal] } }, async (client, stub) => {
        const err = await client.run("stub", { identity: new Identity(TOKEN), onCredentialRequired: () => new Identity(FRESH) }).catch((e: unknown) => e);
        assert.ok(err instanceof AirlockError, String(err));
        assert.deepEqual([err.status, err.reason], refusal);
        assertNoToken(err, err.message);
        assert.ok(stub.requests.some((r) => r.startsWith("DELETE /v1/chains/")), "the run cancelled its chain");
      });
    }
    await withStub({ credential: {} }, async (client) => {
      const err = await client.run("stub", { onCredentialRequired: () => { throw new Error("no token for you"); } }).catch((e: unknown) => e);
      assert.equal((err as Error).message, "no token for you");
    });
  });
});

describe("codeModeTool", () => {
  it("describes the tools with their declarations and runs a script in every SDK shape", async () => {
    await withStub({ calls: [{ tool: "lookup", args: { email: "a@example.com" } }] }, async (client) => {
      const cm = await codeModeTool(client, {
        lookup: { description: "Find a customer by email.", schema: { type: "object" }, handler: (a: { email: string }) => ({ id: 7, email: a.email }) },
      }, { name: "airlock" });
      assert.match(cm.description, /Find a customer by email\./);
      assert.match(cm.description, /lookup\(args: unknown\): Promise<unknown>;/);
      assert.deepEqual(cm.anthropic(), { name: "airlock", description: cm.description, input_schema: cm.inputSchema });
      assert.deepEqual(cm.openai(), { type: "function", function: { name: "airlock", description: cm.description, parameters: cm.inputSchema } });
      assert.equal(cm.openaiResponses().strict, true);
      const wrapped = cm.vercel((s) => ({ jsonSchema: s }));
      assert.deepEqual(wrapped.inputSchema, { jsonSchema: cm.inputSchema });
      const r = await wrapped.execute({ script: "stub" });
      assert.equal(r.ok, true);
      assert.deepEqual(JSON.parse(await cm.call(JSON.stringify({ script: "stub" }))).value[0].value, { id: 7, email: "a@example.com" });
      assert.deepEqual(JSON.parse(await cm.call("{not json")), { ok: false, reason: "invalid_request", error: "the arguments are not JSON", logs: [] });
      const bad = await cm.execute({ script: "syntax error" });
      assert.deepEqual(bad, { ok: false, reason: "invalid_script", error: "unexpected token", logs: [], line: 2, column: 5 });
    });
  });
});

async function waitFor<T extends unknown[]>(f: () => T, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v.length > 0) return v;
    if (Date.now() > deadline) throw new Error("waitFor: timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
}
