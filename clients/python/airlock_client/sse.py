"""A Server-Sent Events parser without I/O, shared by both clients.

It follows the WHATWG event-stream rules the server's stream needs: lines end
in LF, CRLF or CR; ``event``, ``data`` (several joined by LF) and ``id``
fields, one optional space after the colon; comment lines (``: keep-alive``)
ignored; an event is dispatched at a blank line and only if it had data; the
``id`` of the last complete event stays the stream's cursor (Last-Event-ID)
until another one.
"""

from __future__ import annotations

from typing import List, Optional, Tuple

from .errors import UNEXPECTED_RESPONSE, AirlockError

RawEvent = Tuple[str, str, str]  # (name, data, id)


class SSEParser:
    """SSEParser turns the bytes of a stream, fed in pieces of any size, into
    (name, data, id) events. A line longer than ``max_line`` bytes raises
    AirlockError(UNEXPECTED_RESPONSE) instead of growing without bound."""

    def __init__(self, max_line: int, last_id: str = "") -> None:
        self.max_line = max_line
        #: last_id is the id of the last complete event (Last-Event-ID).
        self.last_id = last_id
        self._id = last_id
        self._buf = bytearray()
        self._skip_lf = False
        self._name = ""
        self._data: List[str] = []
        self._has_data = False

    def feed(self, chunk: bytes) -> List[RawEvent]:
        """feed takes the next bytes and returns the events they complete."""
        out: List[RawEvent] = []
        i = 0
        n = len(chunk)
        while i < n:
            if self._skip_lf:
                self._skip_lf = False
                if chunk[i] == 0x0A:
                    i += 1
                    continue
            j = i
            while j < n and chunk[j] not in (0x0A, 0x0D):
                j += 1
            self._buf += chunk[i:j]
            if len(self._buf) > self.max_line:
                raise AirlockError(UNEXPECTED_RESPONSE, "an event stream line is longer than %d bytes" % self.max_line)
            if j == n:
                break
            if chunk[j] == 0x0D:
                self._skip_lf = True
            line = bytes(self._buf)
            self._buf.clear()
            ev = self._line(line)
            if ev is not None:
                out.append(ev)
            i = j + 1
        return out

    def _line(self, raw: bytes) -> Optional[RawEvent]:
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise AirlockError(UNEXPECTED_RESPONSE, "an event stream line is not UTF-8: %s" % e) from None
        if line == "":
            # The id takes effect when its event is complete, not before: a
            # stream cut inside an event resumes before that event.
            self.last_id = self._id
            ev = None
            if self._has_data:
                ev = (self._name or "message", "\n".join(self._data), self.last_id)
            self._name, self._data, self._has_data = "", [], False
            return ev
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "event":
            self._name = value
        elif name == "data":
            self._data.append(value)
            self._has_data = True
        elif name == "id" and "\x00" not in value:
            self._id = value
        return None
