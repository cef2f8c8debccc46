#!/usr/bin/env python3
"""Submit a chain to an airlock server and follow it: python3 stdlib only.

    python3 client.py [--url URL] [--key KEY] [--approve | --deny]
                      [--download DIR] SCRIPT.js|SCRIPT.ts

The script is submitted asynchronously (POST /v1/chains?async=1); the
client then reads the chain's Server-Sent Events (GET /v1/chains/{id}/events),
printing one line per event. When the chain waits for an approval
(approval_required), --approve or --deny decides it through
POST /v1/approvals/{id}, bound to the args_hash it was shown; without
either the request waits for someone else to decide it. At the end the
client prints the result as JSON, downloads the chain's artifacts and media
files into --download DIR if given, and exits 0 only if the chain's status
is ok. A script error (refused at submission as invalid_script, or raised
while the chain ran) is also printed on stderr as SCRIPT:LINE:COLUMN: message.

The key may also come from $AIRLOCK_API_KEY and the URL from $AIRLOCK_URL
(default http://127.0.0.1:8080). It is a thin use of the Python client
package in clients/python (airlock_client); docs/clients.md describes it.
"""

import argparse
import json
import os
import sys

# The package lives in this repository; an installed copy works the same.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python"))
from airlock_client import Airlock, AirlockError, Chain  # noqa: E402


def location(script, line, column=None):
    """Returns "script:line:column", the compiler-style place of an error;
    a line or column the server did not send (absent or 0) is left out."""
    if not line:
        return script
    if not column:
        return "%s:%d" % (script, line)
    return "%s:%d:%d" % (script, line, column)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("script")
    ap.add_argument("--url", default=os.environ.get("AIRLOCK_URL", "http://127.0.0.1:8080"))
    ap.add_argument("--key", default=os.environ.get("AIRLOCK_API_KEY"))
    decision = ap.add_mutually_exclusive_group()
    decision.add_argument("--approve", action="store_true", help="approve every approval request")
    decision.add_argument("--deny", action="store_true", help="deny every approval request")
    ap.add_argument("--download", metavar="DIR", help="save artifacts and media files here")
    args = ap.parse_args()

    with open(args.script, encoding="utf-8") as f:
        source = f.read()
    language = "typescript" if args.script.endswith(".ts") else "javascript"
    client = Airlock(args.url, args.key)

    try:
        chain = client.submit(source, language=language)
    except AirlockError as err:
        print("submit failed: %s %s%s" % (err.status, err.reason, "" if err.line else ": " + err.message),
              file=sys.stderr)
        if err.line:  # invalid_script: where, compiler-style
            print("%s: %s" % (location(args.script, err.line, err.column), err.message), file=sys.stderr)
        return 2
    print("submitted %s" % chain.id)

    final = None
    for ev in client.events(chain.id):
        data = ev.data
        if ev.name == "tool_call":
            print("tool_call %s (%s)" % (data["tool"], data["risk"]))
        elif ev.name == "tool_result":
            print("tool_result %s %s %s" % (data["tool"], data["status"], data.get("reason", "")))
        elif ev.name == "approval_required" and "args" in data:
            print("approval_required %s %s args=%s" % (data["id"], data["tool"], json.dumps(data["args"])))
            if args.approve or args.deny:
                d = "approve" if args.approve else "deny"
                try:
                    out = client.decide(data["id"], args.approve, args_hash=data["args_hash"])
                    print("decided %s: 200 %s" % (d, out.decision))
                except AirlockError as err:
                    print("decided %s: %s %s" % (d, err.status, err.reason))
        elif ev.name == "log":
            print("log %s %s" % (data["level"], data["text"]))
        elif ev.name == "done":
            final = data
    # Without done (the stream ended early), read the chain.
    final_chain = Chain.from_json(final) if final is not None else client.chain(chain.id)
    result = final_chain.result
    print("done %s" % final_chain.status)
    print(json.dumps({"status": result.status if result else None, "reason": result.reason if result else None,
                      "value": result.value if result else None, "error": result.error if result else None},
                     indent=2))
    if result and result.line:  # a script error: where, compiler-style
        print("%s: %s" % (location(args.script, result.line, result.column), result.error), file=sys.stderr)

    if args.download and result:
        os.makedirs(args.download, exist_ok=True)
        refs = [a.ref for a in result.artifacts] + [f.ref for f in result.files if f.ref]
        for ref in refs:
            dest = os.path.join(args.download, ref)
            with open(dest, "wb") as out:
                client.artifact(ref, out)
            print("downloaded %s (%d bytes)" % (dest, os.path.getsize(dest)))

    return 0 if final_chain.status == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
