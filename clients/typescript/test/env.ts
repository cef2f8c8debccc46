// The live tests' settings, from the AIRLOCK_TEST_* variables that
// internal/servetest's Served.Env gives (client_test.go sets them), and
// helpers they share.

import assert from "node:assert/strict";

import { AirlockError } from "../src/index.js";

export interface LiveEnv {
  url: string;
  urls: string[];
  mode: string;
  key: string;
  submitKey: string;
  approverKey: string;
  otherKey: string;
}

/** env reads the live settings; a live test file run without them fails at once. */
export function env(): LiveEnv {
  const need = (k: string): string => {
    const v = process.env[k];
    if (!v) throw new Error(`${k} is unset: the live tests run from client_test.go (go test ./clients/typescript/)`);
    return v;
  };
  return {
    url: need("AIRLOCK_TEST_URL"),
    urls: need("AIRLOCK_TEST_URLS").split(","),
    mode: need("AIRLOCK_TEST_APPROVAL_MODE"),
    key: need("AIRLOCK_TEST_KEY"),
    submitKey: need("AIRLOCK_TEST_SUBMIT_KEY"),
    approverKey: need("AIRLOCK_TEST_APPROVER_KEY"),
    otherKey: need("AIRLOCK_TEST_OTHER_KEY"),
  };
}

/** reasonOf awaits p, which must reject with an AirlockError, and returns its [status, reason]. */
export async function reasonOf(p: Promise<unknown>): Promise<[number, string]> {
  const err = await p.then(() => undefined, (x: unknown) => x);
  assert.ok(err instanceof AirlockError, `expected an AirlockError, got ${err === undefined ? "success" : String(err)}`);
  return [err.status, err.reason];
}
