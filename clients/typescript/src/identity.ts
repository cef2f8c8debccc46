// Delegated identities (docs/identity.md): the user's token a chain acts
// for, held so that printing it never shows the token, and the scrubbing
// that keeps a token out of every error the client throws.

import type { IdentityBody } from "./api.js";
import { AirlockError } from "./errors.js";

const redacted = "[REDACTED]";

/** What the client takes as an identity: an Identity, or the API's object ({subject_token, subject_token_type?, actor?}). */
export type IdentityInit = Identity | IdentityBody;

/**
 * Identity is a delegated identity a chain acts for: the user's subject
 * token (required), its type (access_token, id_token, jwt or
 * refresh_token; default the server's, access_token) and the acting
 * agent's token (actor). Tools with an audience exchange it for a token
 * of their own. Its toString, JSON and util.inspect never show a token.
 */
export class Identity {
  readonly #subjectToken: string;
  readonly #actor: string | undefined;
  /** The subject token's type; undefined means access_token. */
  readonly subjectTokenType: string | undefined;

  constructor(subjectToken: string, opts: { subjectTokenType?: string | undefined; actor?: string | undefined } = {}) {
    if (typeof subjectToken !== "string" || subjectToken === "") throw new TypeError("Identity: subjectToken must be a non-empty string");
    if (opts.subjectTokenType !== undefined && typeof opts.subjectTokenType !== "string") throw new TypeError("Identity: subjectTokenType must be a string");
    if (opts.actor !== undefined && (typeof opts.actor !== "string" || opts.actor === "")) throw new TypeError("Identity: actor must be a non-empty string");
    this.#subjectToken = subjectToken;
    this.#actor = opts.actor;
    this.subjectTokenType = opts.subjectTokenType;
  }

  /**
   * of returns v as an Identity: v itself, or the API's object. Its errors
   * name the field, never its value.
   */
  static of(v: IdentityInit): Identity {
    if (v instanceof Identity) return v;
    if (v === null || typeof v !== "object" || Array.isArray(v)) {
      throw new TypeError(`identity: want an Identity or {subject_token, subject_token_type?, actor?}, got ${Array.isArray(v) ? "an array" : typeof v}`);
    }
    const extra = Object.keys(v).filter((k) => k !== "subject_token" && k !== "subject_token_type" && k !== "actor");
    if (extra.length > 0) throw new TypeError(`identity: unknown fields ${extra.join(", ")}`);
    return new Identity(v.subject_token, { subjectTokenType: v.subject_token_type, actor: v.actor });
  }

  /** The user's token. */
  get subjectToken(): string {
    return this.#subjectToken;
  }

  /** The acting agent's token, if any. */
  get actor(): string | undefined {
    return this.#actor;
  }

  /** body is the identity as a request carries it (the only form that holds the tokens). */
  body(): IdentityBody {
    const b: IdentityBody = { subject_token: this.#subjectToken };
    if (this.subjectTokenType !== undefined) b.subject_token_type = this.subjectTokenType;
    if (this.#actor !== undefined) b.actor = this.#actor;
    return b;
  }

  /** tokens are the secrets it holds. */
  tokens(): string[] {
    return this.#actor === undefined ? [this.#subjectToken] : [this.#subjectToken, this.#actor];
  }

  toString(): string {
    return `Identity(subject_token=${redacted}${this.subjectTokenType === undefined ? "" : `, subject_token_type=${this.subjectTokenType}`}${this.#actor === undefined ? "" : `, actor=${redacted}`})`;
  }

  toJSON(): Record<string, string> {
    const o: Record<string, string> = { subject_token: redacted };
    if (this.subjectTokenType !== undefined) o["subject_token_type"] = this.subjectTokenType;
    if (this.#actor !== undefined) o["actor"] = redacted;
    return o;
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return this.toString();
  }
}

/**
 * scrubbed returns err with the identity's tokens replaced by [REDACTED]
 * in its message: no error the client throws holds a token, even when a
 * server (or something posing as one) echoed it. Other errors pass as
 * they are.
 */
export function scrubbed(err: unknown, identity: Identity | undefined): unknown {
  if (identity === undefined || !(err instanceof AirlockError)) return err;
  const toks = identity.tokens();
  if (!toks.some((t) => err.message.includes(t))) return err;
  let m = err.message;
  for (const t of toks) m = m.split(t).join(redacted);
  const extra: { line?: number; column?: number; decision?: string } = {};
  if (err.line !== undefined) extra.line = err.line;
  if (err.column !== undefined) extra.column = err.column;
  if (err.decision !== undefined) extra.decision = err.decision;
  return new AirlockError(err.status, err.reason, m, extra);
}
