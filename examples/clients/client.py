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
(default http://127.0.0.1:8080). See docs/http-api.md.
"""

import argparse
import json
import os
import sys
import urllib.error
import urllib.request


class Client:
    def __init__(self, url, key=None):
        self.url = url.rstrip("/")
        self.key = key

    def _request(self, method, path, body=None, accept="application/json"):
        headers = {"Accept": accept}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if self.key:
            headers["Authorization"] = "Bearer " + self.key
        return urllib.request.Request(self.url + path, data=data, method=method, headers=headers)

    def call(self, method, path, body=None):
        """Returns (status, decoded JSON body); 4xx/5xx answers do not raise."""
        try:
            with urllib.request.urlopen(self._request(method, path, body)) as resp:
                return resp.status, json.load(resp)
        except urllib.error.HTTPError as err:
            return err.code, json.load(err)

    def download(self, ref, dest):
        with urllib.request.urlopen(self._request("GET", "/v1/artifacts/" + ref, accept="*/*")) as resp:
            with open(dest, "wb") as out:
                while chunk := resp.read(1 << 16):
                    out.write(chunk)

    def events(self, chain_id):
        """Yields (name, data) for each Server-Sent Event of the chain."""
        req = self._request("GET", "/v1/chains/%s/events" % chain_id, accept="text/event-stream")
        with urllib.request.urlopen(req) as resp:
            name, data = None, []
            for raw in resp:
                line = raw.decode("utf-8").rstrip("\r\n")
                if line == "":
                    if name is not None:
                        yield name, json.loads("\n".join(data))
                    name, data = None, []
                elif line.startswith(":"):
                    continue  # a comment or keep-alive
                elif line.startswith("event:"):
                    name = line[len("event:"):].strip()
                elif line.startswith("data:"):
                    data.append(line[len("data:"):].strip())


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
    client = Client(args.url, args.key)

    status, body = client.call("POST", "/v1/chains?async=1", {"script": source, "language": language})
    if status != 202:
        err = body.get("error", {})
        if err.get("line"):  # invalid_script: where, compiler-style
            print("submit failed: %d %s" % (status, err.get("reason")), file=sys.stderr)
            print("%s: %s" % (location(args.script, err["line"], err.get("column")), err.get("message")),
                  file=sys.stderr)
        else:
            print("submit failed: %d %s: %s" % (status, err.get("reason"), err.get("message")), file=sys.stderr)
        return 2
    chain_id = body["id"]
    print("submitted %s" % chain_id)

    final = None
    for name, data in client.events(chain_id):
        if name == "tool_call":
            print("tool_call %s (%s)" % (data["tool"], data["risk"]))
        elif name == "tool_result":
            print("tool_result %s %s %s" % (data["tool"], data["status"], data.get("reason", "")))
        elif name == "approval_required":
            print("approval_required %s %s args=%s" % (data["id"], data["tool"], json.dumps(data["args"])))
            if args.approve or args.deny:
                d = "approve" if args.approve else "deny"
                st, out = client.call("POST", "/v1/approvals/" + data["id"],
                                      {"decision": d, "args_hash": data["args_hash"]})
                print("decided %s: %d %s" % (d, st, out.get("decision") or out.get("error", {}).get("reason")))
        elif name == "log":
            print("log %s %s" % (data["level"], data["text"]))
        elif name == "done":
            final = data
            break

    if final is None:  # the stream ended early: read the chain
        _, final = client.call("GET", "/v1/chains/" + chain_id)
    result = final.get("result") or {}
    print("done %s" % final["status"])
    print(json.dumps({"status": result.get("status"), "reason": result.get("reason"),
                      "value": result.get("value"), "error": result.get("error")}, indent=2))
    if result.get("line"):  # a script error: where, compiler-style
        print("%s: %s" % (location(args.script, result["line"], result.get("column")), result.get("error")),
              file=sys.stderr)

    if args.download:
        os.makedirs(args.download, exist_ok=True)
        refs = [a["$artifact"] for a in result.get("artifacts", [])]
        refs += [f["$artifact"] for f in result.get("files", []) if f.get("$artifact")]
        for ref in refs:
            dest = os.path.join(args.download, ref)
            client.download(ref, dest)
            print("downloaded %s (%d bytes)" % (dest, os.path.getsize(dest)))

    return 0 if final["status"] == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
