"""Tests of the Server-Sent Events parser."""

import unittest

from airlock_client import UNEXPECTED_RESPONSE, AirlockError
from airlock_client.sse import SSEParser

STREAM = (b": chain ch_1\n\n"
          b"id: 1\nevent: tool_call\ndata: {\"tool\":\"a\"}\n\n"
          b": keep-alive\n\n"
          b"id: 2\nevent: log\ndata: {\"text\":\n"
          b"data: \"x\"}\n\n"
          b"id: 3\nevent: done\ndata:{}\n\n")
WANT = [("tool_call", '{"tool":"a"}', "1"), ("log", '{"text":\n"x"}', "2"), ("done", "{}", "3")]


class SSEParserTest(unittest.TestCase):
    def test_whole_stream(self):
        self.assertEqual(SSEParser(1 << 20).feed(STREAM), WANT)

    def test_any_split(self):
        # Every split point, and byte by byte: the same events.
        for cut in range(len(STREAM) + 1):
            p = SSEParser(1 << 20)
            self.assertEqual(p.feed(STREAM[:cut]) + p.feed(STREAM[cut:]), WANT, cut)
        p = SSEParser(1 << 20)
        got = []
        for i in range(len(STREAM)):
            got += p.feed(STREAM[i:i + 1])
        self.assertEqual(got, WANT)

    def test_line_endings(self):
        for nl in (b"\r\n", b"\r"):
            p = SSEParser(1 << 20)
            data = STREAM.replace(b"\n", nl)
            got = []
            for i in range(len(data)):  # a CR at a chunk's end, its LF in the next
                got += p.feed(data[i:i + 1])
            self.assertEqual(got, WANT, nl)

    def test_event_without_data_is_not_dispatched(self):
        p = SSEParser(1 << 20)
        self.assertEqual(p.feed(b"id: 9\nevent: status\n\nevent: x\ndata: 1\n\n"), [("x", "1", "9")])
        self.assertEqual(p.last_id, "9")

    def test_default_name_unknown_fields_and_no_space(self):
        p = SSEParser(1 << 20)
        self.assertEqual(p.feed(b"retry: 10\nfoo: bar\ndata:1\ndata\n\n"), [("message", "1\n", "")])

    def test_id_persists_and_nul_id_ignored(self):
        p = SSEParser(1 << 20)
        self.assertEqual(p.feed(b"id: 4\ndata: a\n\ndata: b\n\nid: 5\x006\ndata: c\n\n"),
                         [("message", "a", "4"), ("message", "b", "4"), ("message", "c", "4")])

    def test_long_line_refused(self):
        p = SSEParser(16)
        with self.assertRaises(AirlockError) as cm:
            p.feed(b"data: " + b"x" * 8)
            p.feed(b"x" * 8)
        self.assertEqual(cm.exception.reason, UNEXPECTED_RESPONSE)
        self.assertIsNone(cm.exception.status)

    def test_not_utf8_refused(self):
        with self.assertRaises(AirlockError) as cm:
            SSEParser(1 << 20).feed(b"data: \xff\xfe\n\n")
        self.assertEqual(cm.exception.reason, UNEXPECTED_RESPONSE)


if __name__ == "__main__":
    unittest.main()
