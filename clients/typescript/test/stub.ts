// A small stand-in for `airlock serve` for the unit tests: it speaks the
// routes the client uses, with chains whose "script" is a list of caller
// calls the stub makes at once; each answer is checked as the HTTP
// contract of caller tools says (args_hash, one answer, deadline, output
// schema, size). The live tests (live.test.ts) run against the real server.

import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface StubCall {
  tool: string;
  args: unknown;
}

interface Pending {
  id: string;
  chain_id: string;
  tenant: string;
  seq: number;
  tool: string;
  args: unknown;
  args_hash: string;
  args_size: number;
  created: string;
  deadline: string;
  answer?: { result?: unknown; error?: string };
  expired?: boolean;
  settle: () => void;
}

interface StubChain {
  id: string;
  status: string;
  events: { event: string; data: unknown }[];
  listeners: Set<() => void>;
  body: Record<string, unknown>;
  calls: Pending[];
  final?: Record<string, unknown>;
  parks?: number;
}

/** Options of the stub. */
export interface StubOptions {
  /** The calls each submitted chain makes, all at once. */
  calls?: StubCall[];
  /** How long a call waits for its answer, ms; default 5000. */
  callTimeoutMs?: number;
  /** The largest result accepted, in bytes of JSON; default 1 MiB. */
  maxResultBytes?: number;
  /** Drop the first event stream after this many events (no done): the client must reconnect. */
  dropStreamAfter?: number;
  /** The status a finished chain ends with; default ok. */
  endStatus?: string;
  /** The API key the stub accepts; default "stub-key". */
  apiKey?: string;
  /**
   * Chains need a fresh identity instead of making calls: a call of
   * crm_lookup (audience crm) is refused (credential_expired with an
   * identity, credential_unavailable without), announced twice (a replay),
   * and, with parked, parks the chain with a pending credential. A taken
   * identity (POST /v1/chains/{id}/identity) ends the chain ok with its
   * subject token as value; refusals are answered first, in order, each
   * message echoing the token sent, and a chain_finished or chain_parked
   * refusal ends the chain ok with value "elsewhere". With parkAgain, the
   * first identity a parked chain takes is refused too: the call parks
   * anew (pending pi_2, the same seq).
   */
  credential?: { parked?: boolean; refusals?: [number, string][]; parkAgain?: boolean };
}

/** A running stub. */
export interface Stub {
  url: string;
  /** Every request, in order: "METHOD path". */
  requests: string[];
  /** The Last-Event-ID headers the event streams were opened with. */
  lastEventIds: (string | undefined)[];
  /** The answers taken, by tool. */
  answers: { tool: string; result?: unknown; error?: string }[];
  /** The chains, by id. */
  chains: Map<string, StubChain>;
  /** The time each call became pending and each answer arrived, ms. */
  timeline: { what: string; at: number }[];
  /** The bodies of POST /v1/chains/{id}/identity, in order. */
  identities: unknown[];
  close(): Promise<void>;
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    return `{${Object.keys(v as object).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(v);
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const b = JSON.stringify(body);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(b) });
  res.end(b);
}

function refuse(res: ServerResponse, status: number, reason: string, message = reason): void {
  send(res, status, { error: { reason, message } });
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const s = Buffer.concat(chunks).toString("utf8");
  return s === "" ? undefined : JSON.parse(s);
}

/** startStub starts the stub on a free loopback port. */
export async function startStub(opts: StubOptions = {}): Promise<Stub> {
  const key = opts.apiKey ?? "stub-key";
  const chains = new Map<string, StubChain>();
  const calls = new Map<string, Pending>();
  const stub: Stub = { url: "", requests: [], lastEventIds: [], answers: [], chains, timeline: [], identities: [], close: async () => {} };
  const t0 = Date.now();
  let n = 0;
  let streams = 0;

  const push = (c: StubChain, event: string, data: unknown) => {
    c.events.push({ event, data });
    for (const l of c.listeners) l();
  };
  const view = (c: StubChain) => ({
    id: c.id, tenant: "acme", status: c.status, language: "javascript", created: new Date(t0).toISOString(),
    ...(c.status === "parked" ? { pending: [{ id: `pi_${c.parks ?? 1}`, kind: "credential", seq: 1, tool: "crm_lookup", gate: "credential", rule: c.body.identity ? "credential_expired" : "credential_unavailable", expires: new Date(t0 + 60_000).toISOString() }] } : {}),
    ...(c.final ? { finished: new Date().toISOString(), result: c.final } : {}),
  });
  const finish = (c: StubChain, status: string, value: unknown, reason?: string) => {
    if (c.final) return;
    c.status = status;
    c.final = { id: c.id, status, value, logs: [], trace: [], files: [], artifacts: [], stats: {}, ...(reason ? { reason, error: `ended ${reason}` } : {}) };
    for (const p of c.calls) if (!p.answer) p.expired = true;
    push(c, "done", view(c));
  };

  const run = async (c: StubChain) => {
    if (opts.credential) {
      const parked = opts.credential.parked === true;
      const ev = { seq: 1, tool: "crm_lookup", audience: "crm", reason: c.body.identity ? "credential_expired" : "credential_unavailable", ...(parked ? { parked } : {}) };
      push(c, "credential_required", ev);
      push(c, "credential_required", ev);
      if (parked) {
        c.status = "parked";
        push(c, "status", view(c));
      }
      return;
    }
    const ms = opts.callTimeoutMs ?? 5000;
    const waits = (opts.calls ?? []).map((sc, i) => {
      const argsJSON = canonical(sc.args);
      const p: Pending = {
        id: `${c.id}.${i + 1}`, chain_id: c.id, tenant: "acme", seq: i + 1, tool: sc.tool, args: JSON.parse(argsJSON),
        args_hash: createHash("sha256").update(argsJSON).digest("hex"), args_size: Buffer.byteLength(argsJSON),
        created: new Date().toISOString(), deadline: new Date(Date.now() + ms).toISOString(), settle: () => {},
      };
      calls.set(p.id, p);
      c.calls.push(p);
      return new Promise<{ tool: string; ok: boolean; value: unknown }>((resolve) => {
        const timer = setTimeout(() => { p.expired = true; resolve({ tool: sc.tool, ok: false, value: "call_timeout" }); }, ms);
        p.settle = () => {
          clearTimeout(timer);
          resolve(p.answer?.error !== undefined ? { tool: sc.tool, ok: false, value: p.answer.error } : { tool: sc.tool, ok: true, value: p.answer?.result });
        };
        stub.timeline.push({ what: `pending ${p.id}`, at: Date.now() });
        push(c, "call_pending", p);
      });
    });
    const out = await Promise.all(waits);
    if (c.final) return;
    if (opts.endStatus && opts.endStatus !== "ok") finish(c, opts.endStatus, undefined, "script_error");
    else finish(c, "ok", out);
  };

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://stub");
    stub.requests.push(`${req.method} ${url.pathname}`);
    if (req.headers.authorization !== `Bearer ${key}`) return refuse(res, 401, "unauthenticated");
    let m: RegExpMatchArray | null;
    try {
      if (req.method === "POST" && url.pathname === "/v1/chains") {
        if (req.headers["content-type"] !== "application/json") return refuse(res, 415, "unsupported_media_type");
        const body = (await readBody(req)) as Record<string, unknown>;
        if (typeof body.script !== "string") return refuse(res, 400, "invalid_request", "script is required");
        if (body.script.includes("syntax error")) {
          return send(res, 400, { error: { reason: "invalid_script", message: "unexpected token", line: 2, column: 5 } });
        }
        const c: StubChain = { id: `ch_stub${++n}`, status: "running", events: [], listeners: new Set(), body, calls: [] };
        chains.set(c.id, c);
        void run(c);
        return send(res, 202, view(c));
      }
      if ((m = url.pathname.match(/^\/v1\/chains\/([^/]+)$/))) {
        const c = chains.get(decodeURIComponent(m[1]!));
        if (!c) return refuse(res, 404, "chain_not_found");
        if (req.method === "GET") return send(res, 200, view(c));
        if (req.method === "DELETE") {
          if (c.final) return refuse(res, 409, "chain_finished");
          finish(c, "cancelled", undefined, "cancelled");
          return send(res, 200, view(c));
        }
      }
      if (req.method === "POST" && (m = url.pathname.match(/^\/v1\/chains\/([^/]+)\/identity$/))) {
        const body = (await readBody(req)) as { subject_token?: unknown };
        stub.identities.push(body);
        const refusal = opts.credential?.refusals?.shift();
        const c = chains.get(decodeURIComponent(m[1]!));
        if (refusal) {
          if (c && (refusal[1] === "chain_finished" || refusal[1] === "chain_parked")) finish(c, "ok", "elsewhere");
          return refuse(res, refusal[0], refusal[1], `refused the identity ${String(body.subject_token)}`);
        }
        if (!c) return refuse(res, 404, "chain_not_found");
        if (c.final) return refuse(res, 409, "chain_finished");
        if (typeof body.subject_token !== "string") return refuse(res, 400, "invalid_request", "subject_token is required");
        if (c.status === "parked") {
          c.status = "running";
          push(c, "status", view(c));
          if (opts.credential?.parkAgain && (c.parks ?? 1) === 1) {
            c.parks = 2;
            c.status = "parked";
            push(c, "credential_required", { seq: 1, tool: "crm_lookup", audience: "crm", reason: "credential_expired", parked: true });
            push(c, "status", view(c));
            res.writeHead(204);
            return res.end();
          }
        }
        finish(c, "ok", body.subject_token);
        res.writeHead(204);
        return res.end();
      }
      if (req.method === "GET" && (m = url.pathname.match(/^\/v1\/chains\/([^/]+)\/events$/))) {
        const c = chains.get(decodeURIComponent(m[1]!));
        if (!c) return refuse(res, 404, "chain_not_found");
        const last = req.headers["last-event-id"] as string | undefined;
        stub.lastEventIds.push(last);
        const stream = ++streams;
        let next = last === undefined ? 0 : Number(last);
        let sent = 0;
        res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
        res.write(": hello\n\n");
        const flush = () => {
          while (next < c.events.length) {
            const e = c.events[next++]!;
            // Split the event over two writes with CRLF line ends, as a proxy might.
            const text = `id: ${next}\r\nevent: ${e.event}\r\ndata: ${JSON.stringify(e.data)}\r\n\r\n`;
            res.write(text.slice(0, 7));
            res.write(text.slice(7));
            sent++;
            if (e.event === "done") {
              c.listeners.delete(flush);
              res.end();
              return;
            }
            if (stream === 1 && opts.dropStreamAfter !== undefined && sent >= opts.dropStreamAfter) {
              c.listeners.delete(flush);
              res.end(); // the stream ends without done: the client reopens it
              return;
            }
          }
        };
        c.listeners.add(flush);
        req.on("close", () => c.listeners.delete(flush));
        flush();
        return;
      }
      if ((m = url.pathname.match(/^\/v1\/calls\/([^/]+)$/))) {
        const p = calls.get(decodeURIComponent(m[1]!));
        if (!p) return refuse(res, 404, "call_not_found");
        if (req.method === "GET") return p.answer || p.expired ? refuse(res, 404, "call_not_found") : send(res, 200, p);
        const body = (await readBody(req)) as Record<string, unknown>;
        const has = (k: string) => Object.prototype.hasOwnProperty.call(body, k);
        if (typeof body.args_hash !== "string" || has("result") === has("error") || (has("error") && typeof body.error !== "string")) {
          return refuse(res, 400, "invalid_request");
        }
        if (body.args_hash !== p.args_hash) return refuse(res, 409, "args_mismatch");
        if (p.answer) return refuse(res, 409, "already_answered");
        if (p.expired) return refuse(res, 410, "call_expired");
        if (has("result")) {
          if (Buffer.byteLength(JSON.stringify(body.result)) > (opts.maxResultBytes ?? 1 << 20)) return refuse(res, 413, "result_too_large");
          if (p.tool === "typed" && typeof body.result !== "number") return refuse(res, 422, "output_schema_mismatch", "result is not a number");
        }
        p.answer = has("error") ? { error: body.error as string } : { result: body.result };
        stub.answers.push({ tool: p.tool, ...p.answer });
        stub.timeline.push({ what: `answer ${p.id}`, at: Date.now() });
        p.settle();
        const { args: _args, settle: _s, answer: _a, expired: _e, ...call } = p;
        return send(res, 200, { call, answered: new Date().toISOString() });
      }
      if (req.method === "POST" && url.pathname === "/v1/tools.d.ts") {
        const body = (await readBody(req)) as { caller_tools?: { name: string; description: string }[] };
        const lines = (body.caller_tools ?? []).map((t) => `  /** ${t.description} */\n  ${t.name}(args: unknown): Promise<unknown>;`);
        res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8" });
        return res.end(`declare const tools: {\n${lines.join("\n")}\n};\n`);
      }
      if (req.method === "GET" && url.pathname === "/v1/artifacts/blob_notjson") {
        res.writeHead(500, { "Content-Type": "text/html" });
        return res.end("<html>oops</html>");
      }
      return refuse(res, 404, "not_found");
    } catch (err) {
      return refuse(res, 500, "internal_error", String(err));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stub.close = () => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return stub;
}
