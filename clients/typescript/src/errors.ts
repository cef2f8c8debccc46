// The client's errors: a refusal by the server (AirlockError, with the
// stable reason code of docs/http-api.md) and a chain that ended without
// `ok` (ChainError, with the result's reason).

import type { Chain, ErrorBody } from "./api.js";

/** The reason codes the client itself gives (no server answer carries them). */
export const clientReasons = {
  /** The server answered something that is not the API's answer (not JSON, a wrong shape). */
  unexpectedResponse: "unexpected_response",
  /** The request never got an answer (connection refused, reset, DNS). */
  network: "network_error",
  /** waitParked: the chain did not park within its timeout. */
  waitTimeout: "wait_timeout",
} as const;

/**
 * AirlockError is a refusal by the server: `status` is the HTTP status and
 * `reason` the stable reason code of its body (`args_mismatch`,
 * `chain_not_found`, …; docs/http-api.md, "Reason codes"), or one of
 * clientReasons when there was no usable answer (status 0 for a network
 * failure).
 */
export class AirlockError extends Error {
  override readonly name = "AirlockError";
  /** The stable reason code. */
  readonly reason: string;
  /** The HTTP status; 0 when no answer came. */
  readonly status: number;
  /** invalid_script: where the script does not parse (1-based). */
  readonly line?: number;
  readonly column?: number;
  /** already_decided: the first decision. */
  readonly decision?: string;

  constructor(status: number, reason: string, message: string, extra?: { line?: number; column?: number; decision?: string; cause?: unknown }) {
    super(message, extra?.cause === undefined ? undefined : { cause: extra.cause });
    this.status = status;
    this.reason = reason;
    if (extra?.line !== undefined) this.line = extra.line;
    if (extra?.column !== undefined) this.column = extra.column;
    if (extra?.decision !== undefined) this.decision = extra.decision;
  }

  /** fromBody makes the error of an error answer's parsed body. */
  static fromBody(status: number, body: unknown): AirlockError {
    const e = (body as Partial<ErrorBody> | undefined)?.error;
    if (e && typeof e.reason === "string") {
      const extra: { line?: number; column?: number; decision?: string } = {};
      if (typeof e.line === "number") extra.line = e.line;
      if (typeof e.column === "number") extra.column = e.column;
      if (typeof e.decision === "string") extra.decision = e.decision;
      return new AirlockError(status, e.reason, typeof e.message === "string" ? e.message : e.reason, extra);
    }
    return new AirlockError(status, clientReasons.unexpectedResponse, `the server answered HTTP ${status} without an error body`);
  }
}

/**
 * ChainError is a chain that ended with a status other than `ok` (error,
 * timeout, cancelled, limit_exceeded, interrupted): `reason` is its
 * result's reason (`script_error`, `timeout`, `memory`, …), `chain` the
 * final chain with its whole result (logs, trace).
 */
export class ChainError extends Error {
  override readonly name = "ChainError";
  /** The result's reason, or the chain's status when it has none. */
  readonly reason: string;
  /** The chain's final status. */
  readonly status: Chain["status"];
  /** The final chain. */
  readonly chain: Chain;
  /** Where a script error happened (1-based), when known. */
  readonly line?: number;
  readonly column?: number;

  constructor(chain: Chain) {
    const r = chain.result;
    super(`chain ${chain.id} ended ${chain.status}${r?.reason ? ` (${r.reason})` : ""}${r?.error ? `: ${r.error}` : ""}`);
    this.chain = chain;
    this.status = chain.status;
    this.reason = r?.reason ?? chain.status;
    if (r?.line !== undefined) this.line = r.line;
    if (r?.column !== undefined) this.column = r.column;
  }
}
