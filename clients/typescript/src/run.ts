// Running a chain with caller tools: follow a chain's events, answer each
// pending call by running its handler and each approval request with the
// caller's decision, and return the result once the chain ends.

import type { ApprovalRequest, CallerToolSpec, Chain, CredentialRequiredEvent, JSONSchema, PendingCall, PendingEntry, Risk, RunResult } from "./api.js";
import type { Airlock, SubmitOptions } from "./client.js";
import { AirlockError, ChainError } from "./errors.js";
import type { IdentityInit } from "./identity.js";

/** What a handler gets besides its arguments. */
export interface ToolContext {
  /** Aborts when the call's deadline passes, the run is aborted or the chain ends. */
  signal: AbortSignal;
  /** The pending call (its id, seq, deadline, …). */
  call: PendingCall;
}

/**
 * Tool is a caller tool: the chain sees it as `tools.<name>(args)`; each
 * call runs handler in this process. A handler that throws makes the
 * script's call throw a ToolError (reason tool_error) with its message.
 */
export interface Tool<A = any, R = unknown> {
  /** What the tool does, for the model: 1 to 200 characters. */
  description: string;
  /** The JSON Schema of its arguments (an object schema); absent, it takes none. */
  schema?: JSONSchema;
  /** The JSON Schema of its result; the server refuses results that break it. */
  outputSchema?: JSONSchema;
  /** Its risk; above the chain's max_risk_unapproved a call needs approval. Default SAFE. */
  risk?: Risk;
  /** The scopes a call needs (docs/governance.md). */
  scopes?: string[];
  /** Runs one call; its value (JSON) is the call's result. */
  handler: (args: A, ctx: ToolContext) => R | Promise<R>;
}

/** Caller tools by name. */
export type Tools = Record<string, Tool<any, any>>;

/** How to decide an approval request: approve, deny, or leave it (undefined) to someone else. */
export type ApprovalHandler = (request: ApprovalRequest) => "approve" | "deny" | undefined | Promise<"approve" | "deny" | undefined>;

/**
 * How to answer a chain's need of a fresh delegated identity: return one
 * (an Identity or `{subject_token, …}`), or undefined to leave it to
 * someone else. It gets the credential_required event's data, or, for a
 * parked chain's pending entry of kind credential, the same built from the
 * entry (its `audience`, or one an event of the stream named; `parked`
 * true).
 */
export type CredentialHandler = (request: CredentialRequiredEvent) => IdentityInit | undefined | Promise<IdentityInit | undefined>;

/** Options of resume (and run). */
export interface FollowOptions {
  /** The caller tools whose calls this run answers. */
  tools?: Tools;
  /** Cancels the chain and rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Decides the chain's approval requests; without it they wait for someone else. */
  onApproval?: ApprovalHandler;
  /** The client that posts decisions (a key of role approver); default the running client. */
  approver?: Airlock;
  /**
   * Gives the chain a fresh identity when a call of a tool with an audience
   * was refused for want of one (a credential_required event, or a parked
   * chain's pending credential): asked once per refused call, its answer
   * is posted with setIdentity (a parked chain resumes on it, a running
   * one's script can retry). Without it the chain waits for someone else.
   */
  onCredentialRequired?: CredentialHandler;
}

/** Options of run: a submission's and resume's. */
export type RunOptions = FollowOptions & Omit<SubmitOptions, "wait" | "tools" | "signal"> & {
  /** Called with the chain once it is submitted, before it ends: its id, to cancel or watch it elsewhere. */
  onSubmitted?: (chain: Chain) => void;
};

/** What run returns for a chain that ended ok. */
export interface RunOutcome<T = unknown> {
  /** The chain's id. */
  id: string;
  /** The script's return value. */
  value: T;
  /** The whole result: logs, trace, artifacts, files, stats. */
  result: RunResult;
  /** The final chain. */
  chain: Chain;
}

/** The names the server accepts for caller tools (docs/http-api.md, "Caller tools"). */
const namePattern = /^[a-z0-9_-]{1,64}$/;

/** callerToolSpecs turns tools into the `caller_tools` of a submission. */
export function callerToolSpecs(tools: Tools): CallerToolSpec[] {
  return Object.entries(tools).map(([name, t]) => {
    if (!namePattern.test(name)) {
      throw new TypeError(`airlock: caller tool name ${JSON.stringify(name)} is not 1 to 64 of a-z, 0-9, _ and -`);
    }
    if (typeof t?.handler !== "function") throw new TypeError(`airlock: caller tool ${name} has no handler`);
    const spec: CallerToolSpec = { name, description: t.description };
    if (t.schema !== undefined) spec.input_schema = t.schema;
    if (t.outputSchema !== undefined) spec.output_schema = t.outputSchema;
    if (t.risk !== undefined) spec.risk = t.risk;
    if (t.scopes !== undefined) spec.scopes = t.scopes;
    return spec;
  });
}

/** The refusals after which an answer is moot: the call is gone or answered. */
const moot = new Set(["call_expired", "already_answered", "call_not_found"]);
/** The refusals after which the call still waits for a (different) answer. */
const refusedResult = new Set(["result_too_large", "output_schema_mismatch"]);
/** The refusals of a decision that leave nothing to do. */
const decided = new Set(["already_decided", "approval_expired", "approval_not_found"]);
/**
 * The refusals of a fresh identity that leave nothing to do: the chain
 * ended, or is parked for something else (another process resumed it
 * first); for a parked chain's request also running_elsewhere (another
 * process took it up).
 */
function identitySettled(err: AirlockError, req: CredentialRequiredEvent): boolean {
  return err.reason === "chain_finished" || err.reason === "chain_parked" || (req.parked === true && err.reason === "running_elsewhere");
}

/** follow drives chain id to its end; see Airlock.run and Airlock.resume. */
export async function follow<T>(client: Airlock, id: string, opts: FollowOptions): Promise<RunOutcome<T>> {
  const tools = opts.tools ?? {};
  const approver = opts.approver ?? client;
  const inner = new AbortController(); // aborted when a handler's answer fails: ends the stream
  const signal = opts.signal ? AbortSignal.any([opts.signal, inner.signal]) : inner.signal;
  // Aborted when the run ends, for the handlers still running. The stream's
  // own requests are not aborted after a clean end: undici reports an abort
  // of a finished response as an unhandled rejection.
  const ended = new AbortController();
  const handlerSignal = AbortSignal.any([signal, ended.signal]);
  const seen = new Set<string>();
  const work = new Set<Promise<void>>();
  let failure: unknown;

  const track = (p: Promise<void>) => {
    const q = p.catch((err) => {
      failure ??= err;
      inner.abort(err);
    });
    work.add(q);
    void q.finally(() => work.delete(q));
  };

  const answer = async (call: PendingCall) => {
    const tool = tools[call.tool];
    let out: { result: unknown } | { error: string };
    const ctl = new AbortController();
    const ms = Date.parse(call.deadline) - Date.now();
    // setTimeout fires at once past 2^31-1 ms; no deadline (a park's 7 days at most) is that far.
    const timer = Number.isFinite(ms)
      ? setTimeout(() => ctl.abort(new Error(`call ${call.id} passed its deadline`)), Math.min(Math.max(ms, 0), 2 ** 31 - 1))
      : undefined;
    const callSignal = AbortSignal.any([handlerSignal, ctl.signal]);
    try {
      if (!tool) throw new Error(`no handler for caller tool ${call.tool} in this client`);
      // A handler that ignores its signal is abandoned when the signal aborts.
      out = { result: await abortable(Promise.resolve(tool.handler(call.args, { signal: callSignal, call })), callSignal) };
    } catch (err) {
      out = { error: message(err) };
    } finally {
      clearTimeout(timer);
    }
    if (handlerSignal.aborted) return;
    try {
      await client.calls.answer(call, out, { signal });
    } catch (err) {
      if (!(err instanceof AirlockError)) throw err;
      if (moot.has(err.reason)) return;
      if (!refusedResult.has(err.reason)) throw err;
      // The server refused the result and the call still waits: tell the script why.
      try {
        await client.calls.answer(call, { error: `the result of ${call.tool} was refused: ${err.reason}: ${err.message}` }, { signal });
      } catch (err2) {
        if (!(err2 instanceof AirlockError) || !moot.has(err2.reason)) throw err2;
      }
    }
  };

  const decide = async (req: ApprovalRequest) => {
    if (!opts.onApproval) return;
    const d = await opts.onApproval(req);
    if (d === undefined || signal.aborted) return;
    try {
      await approver.approvals.decide(req, d, { signal });
    } catch (err) {
      if (!(err instanceof AirlockError) || !decided.has(err.reason)) throw err;
    }
  };

  // Fresh identities: one ask per refused call of a running chain (its
  // seq), one per park of a parked chain (its pending entry's id). The
  // credential_required event of a call that parked its chain only lends
  // its audience: the parked chain's pending entry asks, once the chain is
  // parked (an identity sent before would find it still running) and only
  // while it is (a park settled before, replayed, is not asked about).
  const audiences = new Map<number, string>();
  const credential = async (req: CredentialRequiredEvent) => {
    if (!opts.onCredentialRequired) return;
    const fresh = await opts.onCredentialRequired(req);
    if (fresh === undefined || signal.aborted) return;
    try {
      await client.setIdentity(id, fresh, { signal });
    } catch (err) {
      if (!(err instanceof AirlockError) || !identitySettled(err, req)) throw err;
    }
  };
  const onCredential = (req: CredentialRequiredEvent) => {
    if (req.audience) audiences.set(req.seq, req.audience);
    const key = `credential:${req.seq}`;
    if (!opts.onCredentialRequired || req.parked || seen.has(key)) return;
    seen.add(key);
    track(credential(req));
  };

  const onCall = (call: PendingCall) => {
    // A replayed event of a call that ended has no args: nothing to answer.
    if (seen.has(call.id) || call.args === undefined) return;
    seen.add(call.id);
    track(answer(call));
  };
  const onApproval = (req: ApprovalRequest) => {
    if (seen.has(req.id) || !opts.onApproval) return;
    seen.add(req.id);
    track(decide(req));
  };
  // A parked chain lists what it waits for; fetch each entry whole.
  const onPending = (c: Chain) => {
    for (const p of (c.pending ?? []) as PendingEntry[]) {
      if (!p.id || seen.has(p.id)) continue;
      if (p.kind === "credential") {
        // Once per park (its id): a call refused again after it resumed parks anew.
        if (!opts.onCredentialRequired) continue;
        seen.add(p.id);
        const reason = p.rule === "credential_unavailable" ? "credential_unavailable" : "credential_expired";
        track(credential({ seq: p.seq ?? 0, tool: p.tool ?? "", audience: p.audience || (audiences.get(p.seq ?? 0) ?? ""), reason, parked: true }));
      } else if (p.kind === "call") {
        if (!tools[p.tool ?? ""]) continue;
        seen.add(p.id);
        track(client.calls.get(p.id, { signal }).then(
          (call) => answer(call),
          (err) => { if (!(err instanceof AirlockError) || !moot.has(err.reason)) throw err; },
        ));
      } else if (opts.onApproval) {
        seen.add(p.id);
        track(approver.approvals.get(p.id, { signal }).then(
          (req) => decide(req),
          (err) => { if (!(err instanceof AirlockError) || !decided.has(err.reason)) throw err; },
        ));
      }
    }
  };

  let final: Chain | undefined;
  try {
    onPending(await client.chain(id, { signal }));
    for await (const ev of client.events(id, { signal })) {
      switch (ev.event) {
        case "call_pending":
          onCall(ev.data);
          break;
        case "approval_required":
          if (ev.data.args !== undefined || ev.data.args_ref !== undefined) onApproval(ev.data);
          break;
        case "credential_required":
          onCredential(ev.data);
          break;
        case "status":
          onPending(ev.data);
          break;
        case "done":
          final = ev.data;
          break;
      }
    }
  } catch (err) {
    if (opts.signal?.aborted) {
      await client.cancel(id).catch(() => {});
      throw opts.signal.reason;
    }
    if (failure !== undefined) {
      await client.cancel(id).catch(() => {});
      throw failure;
    }
    throw err;
  } finally {
    ended.abort();
    await Promise.allSettled([...work]);
  }
  if (failure !== undefined) throw failure;
  if (!final) throw new AirlockError(0, "unexpected_response", `the events of chain ${id} ended without done`);
  if (final.status !== "ok" || !final.result) throw new ChainError(final);
  return { id, value: final.result.value as T, result: final.result, chain: final };
}

/** abortable settles as p does, or rejects with signal's reason once it aborts. */
function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => { signal.removeEventListener("abort", onAbort); resolve(v); },
      (e) => { signal.removeEventListener("abort", onAbort); reject(e); },
    );
  });
}

/** The most bytes of an error answer the server takes (docs/http-api.md). */
const maxErrorBytes = 8192;

/** message is the error text a throwing handler answers: never empty, at most maxErrorBytes of UTF-8. */
function message(err: unknown): string {
  let m: string;
  if (err instanceof Error) m = err.message || err.name;
  else if (typeof err === "string") m = err;
  else {
    try {
      m = JSON.stringify(err) ?? String(err);
    } catch {
      m = String(err);
    }
  }
  if (m === "") m = "the handler failed";
  const bytes = new TextEncoder().encode(m);
  if (bytes.length <= maxErrorBytes) return m;
  const cut = new TextDecoder().decode(bytes.slice(0, maxErrorBytes - 8)).replace(/\uFFFD$/, "");
  return cut + "…";
}
