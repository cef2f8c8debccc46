"""The exceptions the client raises, and the reasons it makes itself."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Optional

if TYPE_CHECKING:
    from .models import Chain

# Reasons the client gives to failures that have no answer of the server
# behind them. Every other reason is the server's own (docs/http-api.md,
# "Reason codes"). Their status is None.

#: The server's answer is not what docs/http-api.md says it is: not JSON, an
#: unexpected status, a missing field, a stream line longer than the cap.
UNEXPECTED_RESPONSE = "unexpected_response"
#: The server could not be reached, or the connection broke and could not be
#: opened again.
NETWORK_ERROR = "network_error"
#: The ``timeout`` given to run or wait passed first. run cancelled the chain.
CLIENT_TIMEOUT = "client_timeout"
#: The ``cancel`` event given to a synchronous run or wait was set. run
#: cancelled the chain. (An asyncio task is cancelled with CancelledError.)
CLIENT_CANCELLED = "client_cancelled"
#: wait_parked: the chain was not parked (nor ended) within its timeout.
WAIT_TIMEOUT = "wait_timeout"


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


class ChainError(Exception):
    """ChainError is raised by run and resume for a chain that ended with a
    status other than ok (error, timeout, cancelled, limit_exceeded,
    interrupted). ``reason`` is its result's reason (script_error, timeout,
    memory, ...; the status when there is none), ``status`` the chain's
    final status, ``chain`` the final Chain with its whole result (logs,
    trace), ``line`` and ``column`` where a script error happened (0 when
    unknown)."""

    def __init__(self, chain: "Chain") -> None:
        r = chain.result
        reason = (r.reason if r is not None else "") or chain.status
        error = r.error if r is not None else ""
        super().__init__("chain %s ended %s (%s)%s" % (chain.id, chain.status, reason, ": " + error if error else ""))
        self.chain = chain
        self.status: str = chain.status
        self.reason: str = reason
        self.line: int = r.line if r is not None else 0
        self.column: int = r.column if r is not None else 0
