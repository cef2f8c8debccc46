"""Tests of client.py against a stub airlock server: python3 -m unittest test_client

The stub answers with the bodies docs/http-api.md describes, so these tests
need no airlock binary; cmd/airlock's serve test runs client.py against the
real server. examples/clients/client_test.go runs this file from go test.
"""

import contextlib
import http.server
import io
import json
import os
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import client  # noqa: E402


class Stub(http.server.BaseHTTPRequestHandler):
    """Answers POST /v1/chains with the server's submit answer and the
    events stream with a done event, both set per test on the server."""

    def log_message(self, *args):
        pass

    def _json(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        code, body = self.server.submit
        self._json(code, body)

    def do_GET(self):
        if self.path.endswith("/events"):
            data = "event: done\ndata: %s\n\n" % json.dumps(self.server.done)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            self.wfile.write(data.encode())
            return
        self._json(200, self.server.done)


class ClientTest(unittest.TestCase):
    def setUp(self):
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Stub)
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()
        self.addCleanup(self.server.server_close)
        self.addCleanup(self.server.shutdown)
        fd, self.script = tempfile.mkstemp(suffix=".js")
        os.close(fd)
        self.addCleanup(os.remove, self.script)

    def run_client(self):
        """Runs client.main on self.script; returns (exit code, stdout, stderr)."""
        out, err = io.StringIO(), io.StringIO()
        argv = ["client.py", "--url", "http://127.0.0.1:%d" % self.server.server_port, self.script]
        old, sys.argv = sys.argv, argv
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = client.main()
        finally:
            sys.argv = old
        return code, out.getvalue(), err.getvalue()

    def test_invalid_script_prints_line_and_column(self):
        self.server.submit = (400, {"error": {"reason": "invalid_script",
                                              "message": "SyntaxError: unexpected token in expression: ')'",
                                              "line": 3, "column": 5}})
        code, _, err = self.run_client()
        self.assertEqual(code, 2)
        self.assertIn("submit failed: 400 invalid_script", err)
        self.assertIn("%s:3:5: SyntaxError: unexpected token in expression: ')'" % self.script, err)

    def test_invalid_script_without_column(self):
        self.server.submit = (400, {"error": {"reason": "invalid_script", "message": "bad", "line": 7}})
        code, _, err = self.run_client()
        self.assertEqual(code, 2)
        self.assertIn("%s:7: bad" % self.script, err)

    def test_other_errors_keep_reason_and_message(self):
        self.server.submit = (400, {"error": {"reason": "unknown_field", "message": "unknown field \"scrip\""}})
        code, _, err = self.run_client()
        self.assertEqual(code, 2)
        self.assertIn('submit failed: 400 unknown_field: unknown field "scrip"', err)
        self.assertNotIn(self.script, err)

    def test_script_error_while_running_prints_line_and_column(self):
        self.server.submit = (202, {"id": "ch_1", "status": "running"})
        self.server.done = {"id": "ch_1", "status": "error",
                            "result": {"status": "error", "reason": "script_error", "error": "Error: boom",
                                       "line": 2, "column": 9, "artifacts": [], "files": []}}
        code, out, err = self.run_client()
        self.assertEqual(code, 1)
        self.assertIn("done error", out)
        self.assertIn("%s:2:9: Error: boom" % self.script, err)

    def test_location(self):
        self.assertEqual(client.location("a.js", 3, 5), "a.js:3:5")
        self.assertEqual(client.location("a.js", 3, 0), "a.js:3")
        self.assertEqual(client.location("a.js", 0, 0), "a.js")


if __name__ == "__main__":
    unittest.main()
