// One code-mode tool for an agent: the model writes a script against the
// TypeScript declarations of a set of tools, and the tool's executor runs
// it as a chain. Shapes for the Vercel AI SDK, OpenAI and Anthropic tool
// formats, as plain objects (no SDK dependency).

import type { JSONSchema, LogEntry, PolicyOverride } from "./api.js";
import type { Airlock } from "./client.js";
import { AirlockError, ChainError } from "./errors.js";
import type { ApprovalHandler, Tools } from "./run.js";

/** Options of codeModeTool. */
export interface CodeModeOptions {
  /** The tool's name; default "run_chain". */
  name?: string;
  /** Configured tools or tool sets the chains may call besides the caller tools; default all. */
  configuredTools?: string[];
  /** The chains' policy. */
  policy?: PolicyOverride;
  /** Decides approval requests of the chains. */
  onApproval?: ApprovalHandler;
  /** The client that posts decisions; default the running client. */
  approver?: Airlock;
  /** Text put before the declarations in the description; default a short instruction. */
  instructions?: string;
}

/** The input the model gives the tool. */
export interface CodeModeInput {
  /** The chain: a JavaScript/TypeScript function body that may await tools.<name>(args) and returns the result. */
  script: string;
}

/** What the executor returns to the model: the value, or what went wrong, with the script's logs. */
export type CodeModeResult =
  | { ok: true; value: unknown; logs: LogEntry[] }
  | { ok: false; reason: string; error: string; line?: number; column?: number; logs: LogEntry[] };

/** The code-mode tool, with its definition in each agent SDK's format. */
export interface CodeModeTool {
  name: string;
  /** Instructions plus the TypeScript declarations of the tools. */
  description: string;
  /** The JSON Schema of CodeModeInput. */
  inputSchema: JSONSchema;
  /** Runs input.script as a chain; never throws for a failed chain (the model sees why), only for an abort. */
  execute(input: CodeModeInput, opts?: { signal?: AbortSignal }): Promise<CodeModeResult>;
  /**
   * The Vercel AI SDK's tool shape: pass `jsonSchema` from "ai" as wrap to
   * get the schema object the SDK expects (`tool(cm.vercel(jsonSchema))`).
   */
  vercel<S = JSONSchema>(wrap?: (schema: JSONSchema) => S): {
    description: string;
    inputSchema: S;
    parameters: S;
    execute: (input: CodeModeInput, options?: { abortSignal?: AbortSignal }) => Promise<CodeModeResult>;
  };
  /** OpenAI Chat Completions' function tool. */
  openai(): { type: "function"; function: { name: string; description: string; parameters: JSONSchema } };
  /** OpenAI Responses API's function tool. */
  openaiResponses(): { type: "function"; name: string; description: string; parameters: JSONSchema; strict: boolean };
  /** Anthropic Messages' tool. */
  anthropic(): { name: string; description: string; input_schema: JSONSchema };
  /**
   * call runs a tool call as a model's answer carries it: arguments as a
   * JSON string (OpenAI) or an object (Anthropic); returns the result as
   * the JSON text to send back.
   */
  call(args: string | CodeModeInput, opts?: { signal?: AbortSignal }): Promise<string>;
}

const defaultInstructions =
  "Run a JavaScript chain that calls these tools. Write a function body: it may use top-level await, " +
  "calls each tool as `await tools.<name>(args)` (calls may run at once with Promise.all) and returns the result. " +
  "A failed call throws a ToolError with `.reason`. The tools:";

/**
 * codeModeTool turns tools (caller tools, whose handlers run in this
 * process) and the server's configured tools into one code-mode tool. Its
 * description holds the TypeScript declarations the server gives for
 * exactly that selection (POST /v1/tools.d.ts), so it is asynchronous.
 */
export async function codeModeTool(client: Airlock, tools: Tools, opts: CodeModeOptions = {}): Promise<CodeModeTool> {
  const name = opts.name ?? "run_chain";
  const dts = await client.declarations(tools, opts.configuredTools === undefined ? {} : { configuredTools: opts.configuredTools });
  const description = `${opts.instructions ?? defaultInstructions}\n\n\`\`\`ts\n${dts.trim()}\n\`\`\``;
  const inputSchema: JSONSchema = {
    type: "object",
    properties: {
      script: { type: "string", description: "The chain's JavaScript: a function body that awaits tools.<name>(args) and returns the result." },
    },
    required: ["script"],
    additionalProperties: false,
  };

  const execute = async (input: CodeModeInput, eo: { signal?: AbortSignal } = {}): Promise<CodeModeResult> => {
    if (!input || typeof input.script !== "string") {
      return { ok: false, reason: "invalid_request", error: "the input needs a string field script", logs: [] };
    }
    try {
      const r = await client.run(input.script, {
        tools,
        ...(opts.configuredTools !== undefined && { configuredTools: opts.configuredTools }),
        ...(opts.policy !== undefined && { policy: opts.policy }),
        ...(opts.onApproval !== undefined && { onApproval: opts.onApproval }),
        ...(opts.approver !== undefined && { approver: opts.approver }),
        ...(eo.signal !== undefined && { signal: eo.signal }),
      });
      return { ok: true, value: r.value, logs: r.result.logs };
    } catch (err) {
      if (eo.signal?.aborted) throw err;
      if (err instanceof ChainError) {
        const r = err.chain.result;
        const out: CodeModeResult = { ok: false, reason: err.reason, error: r?.error ?? err.message, logs: r?.logs ?? [] };
        if (err.line !== undefined) out.line = err.line;
        if (err.column !== undefined) out.column = err.column;
        return out;
      }
      if (err instanceof AirlockError) {
        const out: CodeModeResult = { ok: false, reason: err.reason, error: err.message, logs: [] };
        if (err.line !== undefined) out.line = err.line;
        if (err.column !== undefined) out.column = err.column;
        return out;
      }
      throw err;
    }
  };

  return {
    name,
    description,
    inputSchema,
    execute,
    vercel<S = JSONSchema>(wrap?: (schema: JSONSchema) => S) {
      const s = (wrap ? wrap(inputSchema) : inputSchema) as S;
      return {
        description,
        inputSchema: s,
        parameters: s,
        execute: (input: CodeModeInput, o?: { abortSignal?: AbortSignal }) => execute(input, o?.abortSignal ? { signal: o.abortSignal } : {}),
      };
    },
    openai: () => ({ type: "function" as const, function: { name, description, parameters: inputSchema } }),
    openaiResponses: () => ({ type: "function" as const, name, description, parameters: inputSchema, strict: true }),
    anthropic: () => ({ name, description, input_schema: inputSchema }),
    async call(args: string | CodeModeInput, o: { signal?: AbortSignal } = {}) {
      let input: CodeModeInput;
      if (typeof args === "string") {
        try {
          input = JSON.parse(args) as CodeModeInput;
        } catch {
          return JSON.stringify({ ok: false, reason: "invalid_request", error: "the arguments are not JSON", logs: [] });
        }
      } else {
        input = args;
      }
      return JSON.stringify(await execute(input, o));
    },
  };
}
