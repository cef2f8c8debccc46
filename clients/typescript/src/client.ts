// The Airlock client: every endpoint of docs/http-api.md over fetch, the
// event stream over SSE, and run, which submits a chain and answers its
// caller-tool calls and approvals until it ends.

import type {
  Answer,
  ApprovalContext,
  ApprovalRequest,
  CallAnswer,
  CallAnswered,
  Chain,
  ChainSummary,
  CredentialRequiredEvent,
  LifecycleEvent,
  LogEntry,
  Method,
  Outcome,
  Path,
  Status,
  PendingCall,
  RequestBody,
  Submission,
  ToolCallEvent,
  ToolInfo,
  ToolResultEvent,
} from "./api.js";
import { AirlockError, clientReasons } from "./errors.js";
import { parseEvents, type StreamState } from "./sse.js";
import { Identity, type IdentityInit, scrubbed } from "./identity.js";
import { follow, type FollowOptions, type RunOptions, type RunOutcome, callerToolSpecs, type Tools } from "./run.js";

/** What `new Airlock` takes. */
export interface AirlockOptions {
  /** The server's base URL, e.g. http://127.0.0.1:8080. Required. */
  baseUrl: string;
  /** The bearer API key; none for a loopback server without keys. */
  apiKey?: string | undefined;
  /** The fetch to use; default globalThis.fetch. */
  fetch?: typeof fetch | undefined;
  /** Headers added to every request (a traceparent, say). */
  headers?: Record<string, string> | undefined;
}

/** Options of one request. */
export interface RequestOptions {
  /** Aborts the request. */
  signal?: AbortSignal;
}

/** The events of a chain's stream, by name, with their data (x-sse-events in openapi.yaml). */
export interface EventMap {
  approval_required: ApprovalRequest;
  call_pending: PendingCall;
  credential_required: CredentialRequiredEvent;
  tool_call: ToolCallEvent;
  tool_result: ToolResultEvent;
  "tool.before": LifecycleEvent;
  "policy.before": LifecycleEvent;
  "policy.deny": LifecycleEvent;
  "gate.required": LifecycleEvent;
  "tool_call.deduped": LifecycleEvent;
  "tool.after": LifecycleEvent;
  "approval.parked": LifecycleEvent;
  log: LogEntry;
  status: Chain;
  done: Chain;
}

/** One event of a chain's stream; `event` names its data's type. Events of other names are skipped. */
export type ChainEvent = { [K in keyof EventMap]: { id: string; event: K; data: EventMap[K] } }[keyof EventMap];

/** Options of events(). */
export interface EventsOptions extends RequestOptions {
  /** Resume after this event id (Last-Event-ID). */
  lastEventId?: string;
  /** How many times in a row a dropped stream is reopened before giving up; default 5. */
  maxReconnects?: number;
}

/** A downloaded artifact. */
export interface Download {
  /** Its bytes. */
  data: Uint8Array;
  /** Its Content-Type. */
  contentType: string;
  /** Its ETag (its SHA-256), without quotes. */
  etag: string;
}

/** Options of submit(). */
export interface SubmitOptions extends RequestOptions {
  /** The caller tools the chain may call (their handlers are not used by submit). */
  tools?: Tools;
  /** Configured tools or tool sets the chain may call (`tools` of the body). */
  configuredTools?: string[];
  language?: Submission["language"];
  policy?: Submission["policy"];
  limits?: Submission["limits"];
  guest?: Submission["guest"];
  /**
   * The delegated identity the chain acts for (docs/identity.md): an
   * Identity or `{subject_token, subject_token_type?, actor?}`. No error
   * thrown holds its tokens.
   */
  identity?: IdentityInit;
  /** Wait for the chain to end (or park) instead of returning at once. */
  wait?: boolean;
}

const knownEvents = new Set<string>([
  "approval_required", "call_pending", "credential_required", "tool_call", "tool_result", "tool.before", "policy.before", "policy.deny",
  "gate.required", "tool_call.deduped", "tool.after", "approval.parked", "log", "status", "done",
]);

/**
 * Airlock is a client of one `airlock serve` (or of one process of a
 * fleet). It holds no state besides its options: any number of calls may
 * run at once.
 */
export class Airlock {
  readonly baseUrl: string;
  readonly #apiKey: string | undefined;
  readonly #fetch: typeof fetch;
  readonly #headers: Record<string, string>;

  constructor(opts: AirlockOptions) {
    if (!opts || typeof opts.baseUrl !== "string" || opts.baseUrl === "") {
      throw new TypeError("Airlock: baseUrl is required, e.g. new Airlock({baseUrl: \"http://127.0.0.1:8080\"})");
    }
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    this.#apiKey = opts.apiKey;
    this.#fetch = opts.fetch ?? globalThis.fetch.bind(globalThis);
    this.#headers = { ...opts.headers };
  }

  // --- transport -----------------------------------------------------------

  /** fetchRaw sends one request and throws AirlockError on any answer but 2xx. */
  async #send(method: string, path: string, init: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal | undefined }): Promise<Response> {
    const headers: Record<string, string> = { ...this.#headers, ...init.headers };
    if (this.#apiKey) headers["Authorization"] = `Bearer ${this.#apiKey}`;
    let body: string | undefined;
    if (init.body !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(init.body);
    }
    let resp: Response;
    try {
      const req: RequestInit = { method: method.toUpperCase(), headers };
      if (body !== undefined) req.body = body;
      if (init.signal) req.signal = init.signal;
      resp = await this.#fetch(this.baseUrl + path, req);
    } catch (err) {
      if (init.signal?.aborted) throw init.signal.reason;
      throw new AirlockError(0, clientReasons.network, `${method.toUpperCase()} ${path}: ${(err as Error)?.message ?? err}`, { cause: err });
    }
    if (resp.ok) return resp;
    let parsed: unknown;
    try {
      parsed = await resp.json();
    } catch {
      parsed = undefined;
    }
    throw AirlockError.fromBody(resp.status, parsed);
  }

  /**
   * request sends method to the specification's path P (its `{param}`s
   * filled from params) and returns the JSON answer typed by the
   * specification for the statuses ok lists.
   */
  async request<P extends Path, M extends Method, const S extends Status<P, M>>(
    method: M,
    path: P,
    opts: { params?: Record<string, string> | undefined; query?: Record<string, string> | undefined; body?: RequestBody<P, M>; signal?: AbortSignal | undefined; ok: readonly S[] },
  ): Promise<Answer<P, M, S>> {
    const resp = await this.#send(method, fill(path, opts.params, opts.query), { body: opts.body, signal: opts.signal });
    return (await this.#json(resp, method, path, opts.ok)) as Answer<P, M, S>;
  }

  async #json(resp: Response, method: string, path: string, ok: readonly number[]): Promise<unknown> {
    if (!ok.includes(resp.status)) {
      throw new AirlockError(resp.status, clientReasons.unexpectedResponse, `${method.toUpperCase()} ${path}: unexpected HTTP ${resp.status}`);
    }
    try {
      const v: unknown = await resp.json();
      if (v === null || typeof v !== "object") throw new Error("not a JSON object");
      return v;
    } catch (err) {
      throw new AirlockError(resp.status, clientReasons.unexpectedResponse, `${method.toUpperCase()} ${path}: the answer is not a JSON object`, { cause: err });
    }
  }

  // --- chains --------------------------------------------------------------

  /**
   * submit submits a chain and returns it at once (status running), or,
   * with opts.wait, once it ended or parked. The caller tools of opts.tools
   * are declared; nothing answers their calls (use run, or calls.answer).
   */
  async submit(script: string, opts: SubmitOptions = {}): Promise<Chain> {
    const body: Submission = { script };
    if (opts.language !== undefined) body.language = opts.language;
    if (opts.policy !== undefined) body.policy = opts.policy;
    if (opts.limits !== undefined) body.limits = opts.limits;
    if (opts.guest !== undefined) body.guest = opts.guest;
    if (opts.configuredTools !== undefined) body.tools = opts.configuredTools;
    if (opts.tools !== undefined && Object.keys(opts.tools).length > 0) body.caller_tools = callerToolSpecs(opts.tools);
    const identity = opts.identity === undefined ? undefined : Identity.of(opts.identity);
    if (identity !== undefined) body.identity = identity.body();
    try {
      if (opts.wait) return await this.request("post", "/v1/chains", { body, signal: opts.signal, ok: [200] });
      return await this.request("post", "/v1/chains", { body, query: { async: "1" }, signal: opts.signal, ok: [202] });
    } catch (err) {
      throw scrubbed(err, identity);
    }
  }

  /**
   * setIdentity hands a chain a fresh delegated identity (POST
   * /v1/chains/{id}/identity, 204): its next calls of tools with an
   * audience act for it, and a chain parked waiting for one resumes on
   * this process. Refusals (AirlockError): invalid_request,
   * chain_not_found, chain_finished, chain_parked (parked for something
   * else, or another process resumed it first), running_elsewhere. No
   * error thrown holds its tokens.
   */
  async setIdentity(chainId: string, identity: IdentityInit, opts: RequestOptions = {}): Promise<void> {
    const id = Identity.of(identity);
    const body: RequestBody<"/v1/chains/{id}/identity", "post"> = id.body();
    try {
      const resp = await this.#send("post", fill("/v1/chains/{id}/identity", { id: chainId }), { body, signal: opts.signal });
      await resp.body?.cancel();
      if (resp.status !== 204) {
        throw new AirlockError(resp.status, clientReasons.unexpectedResponse, `POST /v1/chains/{id}/identity: unexpected HTTP ${resp.status}`);
      }
    } catch (err) {
      throw scrubbed(err, id);
    }
  }

  /** chain returns a chain's status and, once it ended, its result. */
  chain(id: string, opts: RequestOptions = {}): Promise<Chain> {
    return this.request("get", "/v1/chains/{id}", { params: { id }, signal: opts.signal, ok: [200] });
  }

  /** chains lists the tenant's chains, newest first; status keeps only those of that status. */
  async chains(opts: RequestOptions & { status?: string } = {}): Promise<ChainSummary[]> {
    const query = opts.status === undefined ? undefined : { status: opts.status };
    const a = await this.request("get", "/v1/chains", { query, signal: opts.signal, ok: [200] } as const);
    return a.chains;
  }

  /**
   * cancel cancels a running or parked chain and returns it (final, or
   * still running when it did not end within the server's 5 s). A chain
   * that already ended throws AirlockError chain_finished.
   */
  cancel(id: string, opts: RequestOptions = {}): Promise<Chain> {
    return this.request("delete", "/v1/chains/{id}", { params: { id }, signal: opts.signal, ok: [200, 202] });
  }

  /**
   * events yields the chain's events from its start (or after
   * opts.lastEventId) until `done`. A stream that drops is reopened with
   * Last-Event-ID, at most opts.maxReconnects times in a row.
   */
  async *events(id: string, opts: EventsOptions = {}): AsyncGenerator<ChainEvent> {
    const state: StreamState = { lastEventId: opts.lastEventId ?? "" };
    const max = opts.maxReconnects ?? 5;
    let failures = 0;
    for (;;) {
      const headers: Record<string, string> = { Accept: "text/event-stream" };
      if (state.lastEventId !== "") headers["Last-Event-ID"] = state.lastEventId;
      let resp: Response;
      try {
        resp = await this.#send("get", fill("/v1/chains/{id}/events", { id }), { headers, signal: opts.signal });
      } catch (err) {
        if (!(err instanceof AirlockError) || !retryable(err) || ++failures > max) throw err;
        await sleep(state.retry ?? 250 * failures, opts.signal);
        continue;
      }
      if (!resp.body || !(resp.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
        throw new AirlockError(resp.status, clientReasons.unexpectedResponse, `GET /v1/chains/${id}/events: the answer is not an event stream`);
      }
      try {
        for await (const raw of parseEvents(resp.body, state)) {
          failures = 0;
          if (!knownEvents.has(raw.event)) continue;
          let data: unknown;
          try {
            data = JSON.parse(raw.data);
          } catch (err) {
            throw new AirlockError(resp.status, clientReasons.unexpectedResponse, `event ${raw.event} of chain ${id}: its data is not JSON`, { cause: err });
          }
          const ev = { id: raw.lastEventId, event: raw.event, data } as ChainEvent;
          yield ev;
          if (ev.event === "done") return;
        }
      } catch (err) {
        if (opts.signal?.aborted) throw opts.signal.reason;
        if (err instanceof AirlockError) throw err;
        // The stream broke (reset, truncated): reopen it after the last id.
      }
      if (++failures > max) {
        throw new AirlockError(0, clientReasons.network, `the event stream of chain ${id} ended without done ${max + 1} times`);
      }
      await sleep(state.retry ?? 250 * failures, opts.signal);
    }
  }

  /**
   * wait returns the chain once it ended (its `done` event), following its
   * stream across parks and reconnects.
   */
  async wait(id: string, opts: RequestOptions = {}): Promise<Chain> {
    for await (const ev of this.events(id, opts)) {
      if (ev.event === "done") return ev.data;
    }
    throw new AirlockError(0, clientReasons.unexpectedResponse, `the event stream of chain ${id} ended without done`);
  }

  /**
   * waitParked polls the chain until it is parked with something pending
   * (or ended) and returns it; opts.timeoutMs (default 30000) bounds the
   * wait (AirlockError reason wait_timeout past it).
   */
  async waitParked(id: string, opts: RequestOptions & { timeoutMs?: number; intervalMs?: number } = {}): Promise<Chain> {
    const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
    for (;;) {
      const c = await this.chain(id, opts);
      if ((c.status === "parked" && (c.pending?.length ?? 0) > 0) || c.finished !== undefined) return c;
      if (Date.now() > deadline) {
        throw new AirlockError(0, clientReasons.waitTimeout, `chain ${id} is ${c.status}, not parked, after ${opts.timeoutMs ?? 30_000} ms`);
      }
      await sleep(opts.intervalMs ?? 100, opts.signal);
    }
  }

  /**
   * run submits script with opts.tools as caller tools, answers each of
   * their calls by running its handler (several at once) and each
   * approval request with opts.onApproval, and returns the result once
   * the chain ends ok. A chain that ends otherwise throws ChainError;
   * opts.signal cancels the chain. opts.identity is the identity the chain
   * acts for; opts.onCredentialRequired gives it fresh ones (FollowOptions).
   */
  async run<T = unknown>(script: string, opts: RunOptions = {}): Promise<RunOutcome<T>> {
    opts.signal?.throwIfAborted();
    const chain = await this.submit(script, { ...opts, wait: false });
    opts.onSubmitted?.(chain);
    return follow<T>(this, chain.id, opts);
  }

  /**
   * resume follows a chain that already runs or is parked (on this process
   * or, in a fleet, any other), answering its caller-tool calls,
   * approvals and need of fresh identities as run does, and returns its
   * result once it ends ok.
   */
  resume<T = unknown>(id: string, opts: FollowOptions = {}): Promise<RunOutcome<T>> {
    return follow<T>(this, id, opts);
  }

  // --- approvals -----------------------------------------------------------

  /** approvals lists, reads and decides the tenant's approval requests. */
  readonly approvals = {
    /** list returns the tenant's pending requests, oldest first. */
    list: async (opts: RequestOptions = {}): Promise<ApprovalRequest[]> => {
      const a = await this.request("get", "/v1/approvals", { signal: opts.signal, ok: [200] } as const);
      return a.approvals;
    },
    /** get returns one pending request (approval_not_found once settled). */
    get: (id: string, opts: RequestOptions = {}): Promise<ApprovalRequest> =>
      this.request("get", "/v1/approvals/{id}", { params: { id }, signal: opts.signal, ok: [200] }),
    /** context returns a pending request with what a person needs to decide on it. */
    context: (id: string, opts: RequestOptions = {}): Promise<ApprovalContext> =>
      this.request("get", "/v1/approvals/{id}/context", { params: { id }, signal: opts.signal, ok: [200] }),
    /**
     * decide approves or denies the request, bound to the arguments it
     * showed (its args_hash). Refusals: args_mismatch, already_decided,
     * approval_expired, approval_not_found, forbidden_role.
     */
    decide: (request: Pick<ApprovalRequest, "id" | "args_hash">, decision: "approve" | "deny", opts: RequestOptions = {}): Promise<Outcome> =>
      this.request("post", "/v1/approvals/{id}", {
        params: { id: request.id },
        body: { decision, args_hash: request.args_hash },
        signal: opts.signal,
        ok: [200],
      }),
  };

  // --- caller-tool calls ---------------------------------------------------

  /** calls lists, reads and answers pending calls of caller tools. */
  readonly calls = {
    /** list returns the pending calls of one chain, or with no chain id of the whole tenant. */
    list: async (chainId?: string, opts: RequestOptions = {}): Promise<PendingCall[]> => {
      const a = chainId === undefined
        ? await this.request("get", "/v1/calls", { signal: opts.signal, ok: [200] })
        : await this.request("get", "/v1/chains/{id}/calls", { params: { id: chainId }, signal: opts.signal, ok: [200] });
      return a.calls;
    },
    /** get returns one pending call, its arguments included (call_not_found once answered or ended). */
    get: (id: string, opts: RequestOptions = {}): Promise<PendingCall> =>
      this.request("get", "/v1/calls/{id}", { params: { id }, signal: opts.signal, ok: [200] }),
    /**
     * answer answers a pending call with its result ({result}; undefined is
     * sent as null) or an error message the script's call throws ({error}),
     * bound to the call's args_hash. Refusals: args_mismatch,
     * already_answered, call_expired, call_not_found, result_too_large,
     * output_schema_mismatch, invalid_request (an empty error).
     */
    answer: (call: Pick<PendingCall, "id" | "args_hash">, answer: { result: unknown } | { error: string }, opts: RequestOptions = {}): Promise<CallAnswered> => {
      const body: CallAnswer = "error" in answer
        ? { args_hash: call.args_hash, error: answer.error }
        : { args_hash: call.args_hash, result: answer.result === undefined ? null : answer.result };
      return this.request("post", "/v1/calls/{id}", { params: { id: call.id }, body, signal: opts.signal, ok: [200] });
    },
  };

  // --- artifacts and tools -------------------------------------------------

  /** artifact downloads an artifact of the tenant (artifact_not_found for any other ref). */
  async artifact(ref: string | { $artifact: string }, opts: RequestOptions = {}): Promise<Download> {
    const r = typeof ref === "string" ? ref : ref.$artifact;
    const resp = await this.#send("get", fill("/v1/artifacts/{ref}", { ref: r }), { signal: opts.signal });
    const data = new Uint8Array(await resp.arrayBuffer());
    return {
      data,
      contentType: resp.headers.get("content-type") ?? "application/octet-stream",
      etag: (resp.headers.get("etag") ?? "").replace(/^W\//, "").replace(/"/g, ""),
    };
  }

  /** tools lists the configured tools. */
  async tools(opts: RequestOptions = {}): Promise<ToolInfo[]> {
    const a = await this.request("get", "/v1/tools", { signal: opts.signal, ok: [200] } as const);
    return a.tools;
  }

  /**
   * declarations returns the TypeScript declaration of the `tools` object a
   * chain with these caller tools (and configuredTools, default all) sees,
   * for a model's prompt.
   */
  async declarations(tools?: Tools, opts: RequestOptions & { configuredTools?: string[] } = {}): Promise<string> {
    let resp: Response;
    if (tools === undefined && opts.configuredTools === undefined) {
      resp = await this.#send("get", "/v1/tools.d.ts", { signal: opts.signal });
    } else {
      const body: RequestBody<"/v1/tools.d.ts", "post"> = {};
      if (opts.configuredTools !== undefined) body.tools = opts.configuredTools;
      if (tools !== undefined) body.caller_tools = callerToolSpecs(tools);
      resp = await this.#send("post", "/v1/tools.d.ts", { body, signal: opts.signal });
    }
    return resp.text();
  }
}

/** fill puts params into a path template and appends the query. */
function fill(path: string, params?: Record<string, string>, query?: Record<string, string>): string {
  let p = path.replace(/\{([a-z_]+)\}/g, (_, k: string) => {
    const v = params?.[k];
    if (v === undefined || v === "") throw new TypeError(`airlock: ${path} needs a ${k}`);
    return encodeURIComponent(v);
  });
  if (query && Object.keys(query).length > 0) p += "?" + new URLSearchParams(query).toString();
  return p;
}

function retryable(err: AirlockError): boolean {
  return err.status === 0 || err.status === 502 || err.status === 503 || err.status === 504;
}

/** sleep waits ms, or rejects with the signal's reason when it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
