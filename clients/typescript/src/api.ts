// The API's types by name, taken from the types openapi-typescript
// generates from docs/openapi.yaml (src/openapi.ts), and the typed shape of
// every request the client makes: a request whose path, method, body or
// answer disagrees with the specification does not compile.

import type { components, paths } from "./openapi.js";

type Schemas = components["schemas"];

/** A chain: its id, status and, once it ended, its result (`Chain` in openapi.yaml). */
export type Chain = Schemas["Chain"];
/** Everything a chain produced (`RunResult`). */
export type RunResult = Schemas["RunResult"];
/** A chain without its result, as `GET /v1/chains` lists it. */
export type ChainSummary = Schemas["ChainSummary"];
/** A chain's status. */
export type ChainStatus = Chain["status"];
/** The body of `POST /v1/chains` as the specification declares it. */
export type SubmitRequest = Schemas["SubmitRequest"];
/** The chain's own policy (`policy` of a submission). */
export type PolicyOverride = Schemas["PolicyOverride"];
/** The chain's own sandbox limits (`limits` of a submission). */
export type LimitsOverride = Schemas["LimitsOverride"];
/** The script's clock and randomness (`guest` of a submission). */
export type Guest = Schemas["Guest"];
/** A pending approval request. */
export type ApprovalRequest = Schemas["ApprovalRequest"];
/** A request and what a person needs beside it to decide. */
export type ApprovalContext = Schemas["ApprovalContext"];
/** The answer to a decision. */
export type Outcome = Schemas["Outcome"];
/** One console line of a chain. */
export type LogEntry = Schemas["LogEntry"];
/** One tool call of a chain's trace. */
export type TraceRecord = Schemas["TraceRecord"];
/** A result stored as an artifact. */
export type Artifact = Schemas["Artifact"];
/** A configured tool as `GET /v1/tools` lists it. */
export type ToolInfo = Schemas["ToolInfo"];
/** The data of a `tool_call` event. */
export type ToolCallEvent = Schemas["ToolCallEvent"];
/** The data of a `tool_result` event. */
export type ToolResultEvent = Schemas["ToolResultEvent"];
/** The data of the governance lifecycle events (`tool.before`, …). */
export type LifecycleEvent = Schemas["LifecycleEvent"];
/** A credential_required event: a call needs a fresh identity (POST /v1/chains/{id}/identity). */
export type CredentialRequiredEvent = Schemas["CredentialRequiredEvent"];
/** A delegated identity as a request carries it: `{subject_token, subject_token_type?, actor?}`. */
export type IdentityBody = Schemas["Identity"];
/** The body of every error answer. */
export type ErrorBody = Schemas["Error"];
/** A risk level of a configured tool. */
export type Risk = Schemas["Risk"];

/** A JSON Schema, as a plain object. */
export type JSONSchema = { [key: string]: unknown };
/** A caller tool as a submission declares it (`caller_tools[]`). */
export type CallerToolSpec = Schemas["CallerTool"];
/** A submission (`POST /v1/chains`), caller tools included. */
export type Submission = SubmitRequest;
/** A call of a caller tool that waits for its answer. */
export type PendingCall = Schemas["PendingCall"];
/** The body of `POST /v1/calls/{id}`: exactly one of result and error. */
export type CallAnswer = Schemas["AnswerRequest"];
/** The answer to `POST /v1/calls/{id}`. */
export type CallAnswered = Schemas["AnswerResponse"];
/** The body of `POST /v1/tools.d.ts`. */
export type DeclarationsRequest = Schemas["DeclarationsRequest"];
/** An entry of a parked chain's `pending`: an approval, a caller tool's call (kind "call") or a call waiting for a fresh identity (kind "credential"). */
export type PendingEntry = NonNullable<Chain["pending"]>[number];

// ---------------------------------------------------------------------------
// Typed requests.

/** The HTTP methods the client uses. */
export type Method = "get" | "post" | "delete";

/** The path templates of the specification (`/v1/chains/{id}`, …). */
export type Path = keyof paths;

type Operation<P extends Path, M extends Method> = Exclude<paths[P][M], undefined>;

type JsonContent<R> = R extends { content: { "application/json": infer J } } ? J : never;

/** The statuses the specification declares for method M of path P. */
export type Status<P extends Path, M extends Method> =
  Operation<P, M> extends { responses: infer R } ? Extract<keyof R, number> : never;

/** The JSON body of the answer with status S to method M of path P. */
export type Answer<P extends Path, M extends Method, S extends number> =
  Operation<P, M> extends { responses: infer R } ? (S extends keyof R ? JsonContent<R[S]> : never) : never;

/** The JSON request body of method M of path P (undefined when it takes none). */
export type RequestBody<P extends Path, M extends Method> =
  Operation<P, M> extends { requestBody: { content: { "application/json": infer B } } } ? B : undefined;

/** The path parameters of method M of path P. */
export type PathParams<P extends Path, M extends Method> =
  Operation<P, M> extends { parameters: { path: infer A } } ? A : Operation<P, M> extends { parameters: { path?: infer A } } ? A : never;
