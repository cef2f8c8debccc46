"""The one exception the client raises, and the reasons it makes itself."""

from __future__ import annotations

from typing import Any, Mapping, Optional

# Reasons the client gives to failures that have no answer of the server
# behind them. Every other reason is the server's own (docs/http-api.md,
# "Reason codes"). Their status is None.

#: The server's answer is not what docs/http-api.md says it is: not JSON, an
#: unexpected status, a missing field, a stream line longer than the cap.
BAD_RESPONSE = "bad_response"
#: The server could not be reached, or the connection broke and could not be
#: opened again.
CONNECTION_FAILED = "connection_failed"
#: The ``timeout`` given to run or wait passed first. run cancelled the chain.
CLIENT_TIMEOUT = "client_timeout"
#: The ``cancel`` event given to a synchronous run or wait was set. run
#: cancelled the chain. (An asyncio task is cancelled with CancelledError.)
CLIENT_CANCELLED = "client_cancelled"


class AirlockError(Exception):
    """AirlockError is raised for every refusal and failure.

    ``reason`` is the stable code to branch on: the server's (``args_mismatch``,
    ``call_expired``, ``unauthenticated``, ...) or one of this module's
    constants for failures without an answer. ``status`` is the HTTP status,
    or None for the client's own reasons. ``body`` is the decoded ``error``
    object of the answer (empty when there was none); fields some errors add
    are there (``line``, ``column`` for invalid_script, ``decision`` for
    already_decided).
    """

    def __init__(self, reason: str, message: str, status: Optional[int] = None,
                 body: Optional[Mapping[str, Any]] = None) -> None:
        super().__init__("%s: %s" % (reason, message) if status is None else "%d %s: %s" % (status, reason, message))
        self.reason: str = reason
        self.message: str = message
        self.status: Optional[int] = status
        self.body: Mapping[str, Any] = dict(body or {})

    @property
    def line(self) -> Optional[int]:
        """line is where an invalid_script error is, 1-based; None otherwise."""
        v = self.body.get("line")
        return v if isinstance(v, int) else None

    @property
    def column(self) -> Optional[int]:
        """column is where on its line an invalid_script error is, 1-based."""
        v = self.body.get("column")
        return v if isinstance(v, int) else None
