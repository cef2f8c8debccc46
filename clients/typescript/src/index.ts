// @airlockrt/client: a TypeScript client for `airlock serve` (docs/clients.md).

export { Airlock } from "./client.js";
export type { AirlockOptions, ChainEvent, Download, EventMap, EventsOptions, RequestOptions, SubmitOptions } from "./client.js";
export { AirlockError, ChainError, clientReasons } from "./errors.js";
export { Identity } from "./identity.js";
export type { IdentityInit } from "./identity.js";
export { callerToolSpecs } from "./run.js";
export type { ApprovalHandler, CredentialHandler, FollowOptions, RunOptions, RunOutcome, Tool, ToolContext, Tools } from "./run.js";
export { codeModeTool } from "./codemode.js";
export type { CodeModeInput, CodeModeOptions, CodeModeResult, CodeModeTool } from "./codemode.js";
export { parseEvents } from "./sse.js";
export type { RawEvent, StreamState } from "./sse.js";
export type * from "./api.js";
