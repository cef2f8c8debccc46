"""A stub airlock server for the client's unit tests.

Each test sets ``routes``: (METHOD, path without query) -> handler(req) that
returns a Reply. Every request is recorded in ``requests``. Replies:
``json_reply`` (status and body), ``raw_reply`` (any bytes and content
type) and ``sse_reply`` (a stream written piece by piece, each piece bytes,
a float (seconds to sleep), a threading.Event to wait for, or DROP to cut
the connection without ending the chunked body).
"""

from __future__ import annotations

import http.server
import json
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

DROP = object()


@dataclass
class Request:
    method: str
    path: str
    query: Dict[str, List[str]]
    headers: Dict[str, str]
    body: Any

    def header(self, name: str) -> Optional[str]:
        return self.headers.get(name.lower())


@dataclass
class Reply:
    status: int = 200
    content_type: str = "application/json"
    body: bytes = b""
    stream: Optional[List[Any]] = None
    hang: float = 0.0
    #: until_close: no Content-Length, the body ends with the connection.
    until_close: bool = False


def json_reply(status: int, body: Any) -> Reply:
    return Reply(status, "application/json", json.dumps(body).encode())


def raw_reply(status: int, body: bytes, content_type: str = "text/html") -> Reply:
    return Reply(status, content_type, body)


def error_reply(status: int, reason: str, message: str = "stub says no", **extra: Any) -> Reply:
    err = {"reason": reason, "message": message}
    err.update(extra)
    return json_reply(status, {"error": err})


def sse(name: str, data: Any, id: Optional[int] = None) -> bytes:
    out = "" if id is None else "id: %d\n" % id
    return (out + "event: %s\ndata: %s\n\n" % (name, json.dumps(data))).encode()


def sse_reply(*pieces: Any, content_type: str = "text/event-stream") -> Reply:
    return Reply(200, content_type, stream=list(pieces))


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are written apart
    server: "Stub"

    def log_message(self, *args: Any) -> None:
        pass

    def _handle(self) -> None:
        u = urllib.parse.urlsplit(self.path)
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        body = json.loads(raw) if raw else None
        req = Request(self.command, urllib.parse.unquote(u.path), urllib.parse.parse_qs(u.query),
                      {k.lower(): v for k, v in self.headers.items()}, body)
        # The raw path too: tests check that ids are escaped.
        req.headers[":raw-path"] = u.path
        with self.server.lock:
            self.server.requests.append(req)
        fn = self.server.routes.get((self.command, req.path))
        if fn is None:
            for (m, prefix), f in self.server.routes.items():
                if m == self.command and prefix.endswith("*") and req.path.startswith(prefix[:-1]):
                    fn = f
                    break
        try:
            reply = fn(req) if fn is not None else error_reply(404, "not_found", "no stub route")
        except Exception as e:  # an assertion of the test, in the route
            with self.server.lock:
                self.server.errors.append(e)
            reply = error_reply(500, "stub_failed", repr(e))
        if reply.hang:
            time.sleep(reply.hang)
        if reply.stream is None:
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            if not reply.until_close:
                self.send_header("Content-Length", str(len(reply.body)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(reply.body)
            return
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        try:
            for p in reply.stream:
                if p is DROP:
                    self.wfile.flush()
                    return
                if isinstance(p, float):
                    time.sleep(p)
                    continue
                if isinstance(p, threading.Event):
                    p.wait(10)
                    continue
                if callable(p):
                    p = p()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(p), p))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
        except OSError:
            pass

    do_GET = do_POST = do_DELETE = _handle


class Stub(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.routes: Dict[Tuple[str, str], Callable[[Request], Reply]] = {}
        self.requests: List[Request] = []
        #: errors are the exceptions routes raised (tests check it is empty).
        self.errors: List[BaseException] = []
        self.lock = threading.Lock()
        threading.Thread(target=self.serve_forever, args=(0.05,), daemon=True).start()

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hung up mid-answer is what some tests do

    @property
    def url(self) -> str:
        return "http://127.0.0.1:%d" % self.server_port

    def close(self) -> None:
        self.shutdown()
        self.server_close()

    def seen(self, method: str, path: str) -> List[Request]:
        with self.lock:
            return [r for r in self.requests if r.method == method and r.path == path]


def chain_doc(id: str = "ch_1", status: str = "running", **result: Any) -> Dict[str, Any]:
    """chain_doc is a Chain body; with result fields it has a result."""
    d: Dict[str, Any] = {"id": id, "tenant": "acme", "status": status, "language": "javascript",
                         "created": "2026-11-27T21:00:00Z"}
    if result:
        r = {"id": id, "status": status, "logs": [], "trace": [], "files": [], "artifacts": [], "stats": {}}
        r.update(result)
        d["result"] = r
        d["finished"] = "2026-11-27T21:00:01Z"
    return d


def call_doc(id: str, seq: int, tool: str, args: Any, chain_id: str = "ch_1") -> Dict[str, Any]:
    return {"id": id, "chain_id": chain_id, "tenant": "acme", "seq": seq, "tool": tool, "args": args,
            "args_hash": "h-" + id, "args_size": len(json.dumps(args)), "created": "2026-11-27T21:00:00Z",
            "deadline": "2026-11-27T21:01:00Z"}


def approval_doc(id: str, tool: str = "send", args: Any = None, chain_id: str = "ch_1") -> Dict[str, Any]:
    d = {"id": id, "tenant": "acme", "session_id": chain_id, "tool": tool, "risk": "HIGH",
         "args_hash": "ah-" + id, "args_size": 2, "created": "2026-11-27T21:00:00Z",
         "expires": "2026-11-27T21:01:00Z"}
    if args is not None:
        d["args"] = args
        d["args_text"] = json.dumps(args)
    return d
