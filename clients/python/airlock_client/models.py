"""Typed views of the server's answers (docs/http-api.md), as dataclasses.

Every model keeps the decoded object it was made from in ``raw``, so a field
a newer server adds is still reachable. Times are the server's RFC 3339
strings, unchanged. Decoding checks the fields the client relies on and
raises AirlockError(UNEXPECTED_RESPONSE) when one is missing or of the wrong type;
other fields default when absent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Dict, List, Mapping, Optional, Sequence, Union

from .errors import UNEXPECTED_RESPONSE, AirlockError

JSON = Any


def _obj(v: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(v, dict):
        raise AirlockError(UNEXPECTED_RESPONSE, "%s is not a JSON object: %.200r" % (what, v))
    return v


def _str(d: Mapping[str, Any], key: str, what: str, required: bool = True) -> str:
    v = d.get(key)
    if v is None and not required:
        return ""
    if not isinstance(v, str) or (required and v == ""):
        raise AirlockError(UNEXPECTED_RESPONSE, "%s has no string %r: %.200r" % (what, key, d))
    return v


def _int(d: Mapping[str, Any], key: str, default: int = 0) -> int:
    v = d.get(key, default)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise AirlockError(UNEXPECTED_RESPONSE, "field %r is not a number: %.200r" % (key, v))
    return int(v)


def _list(d: Mapping[str, Any], key: str, what: str) -> List[Any]:
    v = d.get(key)
    if v is None:
        return []
    if not isinstance(v, list):
        raise AirlockError(UNEXPECTED_RESPONSE, "%s field %r is not an array: %.200r" % (what, key, v))
    return v


@dataclass
class TraceRecord:
    """TraceRecord is one tool call of a chain, as its trace holds it.

    ``status`` is ok, error, denied or timeout; ``reason`` the invoker's
    reason code (empty for ok); ``duration_ns`` in nanoseconds.
    """

    seq: int
    tool: str
    status: str
    reason: str = ""
    message: str = ""
    duration_ns: int = 0
    arg_bytes: int = 0
    result_bytes: int = 0
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, v: Any) -> "TraceRecord":
        d = _obj(v, "a trace record")
        return cls(seq=_int(d, "seq"), tool=_str(d, "tool", "a trace record"),
                   status=_str(d, "status", "a trace record"), reason=_str(d, "reason", "", False),
                   message=_str(d, "message", "", False), duration_ns=_int(d, "duration_ns"),
                   arg_bytes=_int(d, "arg_bytes"), result_bytes=_int(d, "result_bytes"), raw=d)


@dataclass
class LogLine:
    """LogLine is one line of a chain's console output."""

    level: str
    text: str


@dataclass
class Artifact:
    """Artifact is a result stored in the blob store instead of inline;
    download it with ``artifact(ref)``. ``size`` is in bytes."""

    ref: str
    preview: str = ""
    size: int = 0
    mime: str = ""

    @classmethod
    def from_json(cls, v: Any) -> "Artifact":
        d = _obj(v, "an artifact")
        return cls(ref=_str(d, "$artifact", "an artifact"), preview=_str(d, "preview", "", False),
                   size=_int(d, "size"), mime=_str(d, "mime", "", False))


@dataclass
class MediaFile:
    """MediaFile is a media file a tool returned; ``ref`` (empty if none)
    downloads it."""

    path: str
    mime: str = ""
    size: int = 0
    ref: str = ""


@dataclass
class RunResult:
    """RunResult is everything a chain produced (docs/http-api.md, "The
    RunResult"). ``value`` is the script's return value when status is ok."""

    id: str
    status: str
    reason: str = ""
    error: str = ""
    line: int = 0
    column: int = 0
    value: JSON = None
    logs: List[LogLine] = field(default_factory=list)
    logs_truncated: bool = False
    trace: List[TraceRecord] = field(default_factory=list)
    trace_dropped: int = 0
    artifacts: List[Artifact] = field(default_factory=list)
    files: List[MediaFile] = field(default_factory=list)
    stats: Mapping[str, Any] = field(default_factory=dict)
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, v: Any) -> "RunResult":
        d = _obj(v, "a chain's result")
        logs = []
        for e in _list(d, "logs", "a result"):
            e = _obj(e, "a log line")
            logs.append(LogLine(level=_str(e, "level", "a log line"), text=_str(e, "text", "a log line", False)))
        files = []
        for f in _list(d, "files", "a result"):
            f = _obj(f, "a media file")
            files.append(MediaFile(path=_str(f, "path", "a media file"), mime=_str(f, "mime", "", False),
                                   size=_int(f, "size"), ref=_str(f, "$artifact", "", False)))
        stats = d.get("stats") or {}
        return cls(id=_str(d, "id", "a result", False), status=_str(d, "status", "a result"),
                   reason=_str(d, "reason", "", False), error=_str(d, "error", "", False),
                   line=_int(d, "line"), column=_int(d, "column"), value=d.get("value"), logs=logs,
                   logs_truncated=bool(d.get("logs_truncated")),
                   trace=[TraceRecord.from_json(r) for r in _list(d, "trace", "a result")],
                   trace_dropped=_int(d, "trace_dropped"),
                   artifacts=[Artifact.from_json(a) for a in _list(d, "artifacts", "a result")],
                   files=files, stats=_obj(stats, "a result's stats"), raw=d)


@dataclass
class Pending:
    """Pending is what a parked chain waits for: ``kind`` is "approval" (an
    approval request: read it with ``approval(id)``), "call" (a caller
    tool's call: read it with ``call(id)``) or "credential" (a call that
    waits for a fresh delegated identity: hand one with
    ``set_identity(chain_id, ...)``; ``rule`` is then the reason its call
    was refused, credential_expired or credential_unavailable, and
    ``audience`` the audience its tool needs)."""

    id: str
    kind: str
    tool: str = ""
    risk: str = ""
    args_hash: str = ""
    args_size: int = 0
    seq: int = 0
    expires: str = ""
    rule: str = ""
    audience: str = ""
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, v: Any) -> "Pending":
        d = _obj(v, "a pending entry")
        return cls(id=_str(d, "id", "a pending entry"), kind=_str(d, "kind", "", False) or "approval",
                   tool=_str(d, "tool", "", False), risk=_str(d, "risk", "", False),
                   args_hash=_str(d, "args_hash", "", False), args_size=_int(d, "args_size"),
                   seq=_int(d, "seq"), expires=_str(d, "expires", "", False), rule=_str(d, "rule", "", False),
                   audience=_str(d, "audience", "", False),
                   raw=d)


class Identity:
    """Identity is a delegated identity a chain acts for (docs/identity.md):
    the user's ``subject_token`` (required), its ``subject_token_type``
    (access_token, id_token, jwt or refresh_token; None: the server's
    default, access_token) and the acting agent's token ``actor`` (None:
    none). Tools with an audience exchange it for a token of their own.

    Its repr and str never show a token, only whether one is there; a
    mapping with the same keys is accepted wherever an Identity is.
    """

    __slots__ = ("subject_token", "subject_token_type", "actor")

    def __init__(self, subject_token: str, subject_token_type: Optional[str] = None,
                 actor: Optional[str] = None) -> None:
        if not isinstance(subject_token, str) or not subject_token:
            raise ValueError("Identity: subject_token must be a non-empty string")
        if subject_token_type is not None and not isinstance(subject_token_type, str):
            raise ValueError("Identity: subject_token_type must be a string or None")
        if actor is not None and (not isinstance(actor, str) or not actor):
            raise ValueError("Identity: actor must be a non-empty string or None")
        self.subject_token = subject_token
        self.subject_token_type = subject_token_type
        self.actor = actor

    @classmethod
    def of(cls, v: Union["Identity", Mapping[str, Any]]) -> "Identity":
        """of is v as an Identity: v itself, or a mapping with the keys
        subject_token, subject_token_type and actor. The errors it raises
        name the field, never its value."""
        if isinstance(v, Identity):
            return v
        if not isinstance(v, Mapping):
            raise TypeError("identity: want an Identity or a mapping with subject_token, got a %s" % type(v).__name__)
        extra = sorted(set(v) - {"subject_token", "subject_token_type", "actor"})
        if extra:
            raise ValueError("identity: unknown fields %s" % ", ".join(str(k) for k in extra))
        return cls(v.get("subject_token"), v.get("subject_token_type"), v.get("actor"))  # type: ignore[arg-type]

    def to_json(self) -> Dict[str, str]:
        """to_json is the identity as a request carries it."""
        d = {"subject_token": self.subject_token}
        if self.subject_token_type:
            d["subject_token_type"] = self.subject_token_type
        if self.actor:
            d["actor"] = self.actor
        return d

    def tokens(self) -> List[str]:
        """tokens are the secrets it holds, for scrubbing them from text."""
        return [t for t in (self.subject_token, self.actor) if t]

    def __repr__(self) -> str:
        return "Identity(subject_token=[REDACTED], subject_token_type=%r, actor=%s)" % (
            self.subject_token_type, "[REDACTED]" if self.actor else "None")

    __str__ = __repr__

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Identity) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]


@dataclass
class CredentialRequest:
    """CredentialRequest is a chain's need of a fresh delegated identity: a
    call of ``tool`` (``seq``) of a tool with an ``audience`` was refused
    for ``reason`` (credential_expired: the token service refused the
    chain's token; credential_unavailable: the chain has none). ``parked``
    says the chain parked on that call and resumes once it gets one. It is
    a credential_required event's data, or a parked chain's pending entry of
    kind credential (with the entry's ``audience``, or one an event named).
    It holds no token."""

    chain_id: str
    seq: int
    tool: str
    reason: str
    audience: str = ""
    parked: bool = False
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_event(cls, chain_id: str, v: Any) -> "CredentialRequest":
        d = _obj(v, "a credential_required event")
        return cls(chain_id=chain_id, seq=_int(d, "seq"), tool=_str(d, "tool", "a credential_required event"),
                   reason=_str(d, "reason", "", False), audience=_str(d, "audience", "", False),
                   parked=d.get("parked") is True, raw=d)


#: Statuses after which a chain changes no more.
FINAL_STATUSES = frozenset({"ok", "error", "timeout", "cancelled", "limit_exceeded", "interrupted"})


@dataclass
class Chain:
    """Chain is a chain's status and, once it ended, its result.

    ``status`` is running, waiting_approval, parked (in a fleet) or a final
    status (``finished`` then tells whether it ended: see ``done``).
    ``pending`` lists what a parked chain waits for.
    """

    id: str
    status: str
    tenant: str = ""
    language: str = ""
    created: str = ""
    finished: str = ""
    result: Optional[RunResult] = None
    pending: List[Pending] = field(default_factory=list)
    expires: str = ""
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @property
    def done(self) -> bool:
        """done reports whether the chain ended (its status is final)."""
        return self.status in FINAL_STATUSES

    @property
    def value(self) -> JSON:
        """value is the script's return value, None until the chain ended."""
        return self.result.value if self.result is not None else None

    @classmethod
    def from_json(cls, v: Any) -> "Chain":
        d = _obj(v, "a chain")
        res = d.get("result")
        return cls(id=_str(d, "id", "a chain"), status=_str(d, "status", "a chain"),
                   tenant=_str(d, "tenant", "", False), language=_str(d, "language", "", False),
                   created=_str(d, "created", "", False), finished=_str(d, "finished", "", False),
                   result=RunResult.from_json(res) if res is not None else None,
                   pending=[Pending.from_json(p) for p in _list(d, "pending", "a chain")],
                   expires=_str(d, "expires", "", False), raw=d)


@dataclass
class ChainSummary:
    """ChainSummary is a chain as ``chains()`` lists it, without its result;
    ``pending`` counts the approvals a parked chain waits for."""

    id: str
    status: str
    reason: str = ""
    language: str = ""
    created: str = ""
    finished: str = ""
    pending: int = 0
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, v: Any) -> "ChainSummary":
        d = _obj(v, "a chain summary")
        p = d.get("pending")
        return cls(id=_str(d, "id", "a chain summary"), status=_str(d, "status", "a chain summary"),
                   reason=_str(d, "reason", "", False), language=_str(d, "language", "", False),
                   created=_str(d, "created", "", False), finished=_str(d, "finished", "", False),
                   pending=p if isinstance(p, int) else len(p) if isinstance(p, list) else 0, raw=d)


@dataclass
class ApprovalRequest:
    """ApprovalRequest is a call that waits for a person's decision.

    ``args`` is set while the request is pending and its arguments are at
    most 4 KiB (else ``args_preview`` and ``args_ref``); ``args_text`` is the
    text to show a person; ``args_hash`` binds a decision to the arguments.
    ``chain_id`` is the chain that waits (the server's ``session_id``).
    """

    id: str
    tool: str
    args_hash: str
    tenant: str = ""
    chain_id: str = ""
    risk: str = ""
    args: JSON = None
    has_args: bool = False
    args_preview: str = ""
    args_ref: str = ""
    args_text: str = ""
    args_size: int = 0
    created: str = ""
    expires: str = ""
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, v: Any) -> "ApprovalRequest":
        d = _obj(v, "an approval request")
        w = "an approval request"
        return cls(id=_str(d, "id", w), tool=_str(d, "tool", w), args_hash=_str(d, "args_hash", w),
                   tenant=_str(d, "tenant", "", False), chain_id=_str(d, "session_id", "", False),
                   risk=_str(d, "risk", "", False), args=d.get("args"), has_args="args" in d,
                   args_preview=_str(d, "args_preview", "", False), args_ref=_str(d, "args_ref", "", False),
                   args_text=_str(d, "args_text", "", False), args_size=_int(d, "args_size"),
                   created=_str(d, "created", "", False), expires=_str(d, "expires", "", False), raw=d)


@dataclass
class Decision:
    """Decision is the answer to a decision that was taken: ``decision`` is
    approved or denied, ``decided`` when."""

    request: ApprovalRequest
    decision: str
    decided: str = ""

    @classmethod
    def from_json(cls, v: Any) -> "Decision":
        d = _obj(v, "a decision")
        return cls(request=ApprovalRequest.from_json(d.get("request")), decision=_str(d, "decision", "a decision"),
                   decided=_str(d, "decided", "", False))


@dataclass
class PendingCall:
    """PendingCall is a call of a chain to one of its caller tools that waits
    for the caller's answer (``answer(call, result=...)``) until ``deadline``.

    ``args`` are the canonical arguments (artifact refs resolved; absent,
    ``has_args`` False, once the call was answered or ended) and
    ``args_hash`` the hex SHA-256 an answer must carry. ``id`` is opaque.
    ``idempotency_key`` is the key the script gave the call
    (``$idempotency_key``), for the caller to keep its own outcomes by.
    """

    id: str
    chain_id: str
    tool: str
    args_hash: str
    args: JSON = None
    has_args: bool = False
    tenant: str = ""
    seq: int = 0
    args_size: int = 0
    created: str = ""
    deadline: str = ""
    idempotency_key: str = ""
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, v: Any) -> "PendingCall":
        d = _obj(v, "a pending call")
        w = "a pending call"
        return cls(id=_str(d, "id", w), chain_id=_str(d, "chain_id", w), tool=_str(d, "tool", w),
                   args_hash=_str(d, "args_hash", w), args=d.get("args"), has_args="args" in d,
                   tenant=_str(d, "tenant", "", False),
                   seq=_int(d, "seq"), args_size=_int(d, "args_size"), created=_str(d, "created", "", False),
                   deadline=_str(d, "deadline", "", False),
                   idempotency_key=_str(d, "idempotency_key", "", False), raw=d)


@dataclass
class CallAnswer:
    """CallAnswer is the answer to an answer that was taken."""

    call: PendingCall
    answered: str = ""

    @classmethod
    def from_json(cls, v: Any) -> "CallAnswer":
        d = _obj(v, "an answer")
        return cls(call=PendingCall.from_json(d.get("call")), answered=_str(d, "answered", "", False))


@dataclass
class Event:
    """Event is one Server-Sent Event of a chain's stream: ``name`` (tool_call,
    tool_result, approval_required, call_pending, log, status, done, or a
    lifecycle event), ``id`` (the stream's cursor) and ``data`` (decoded
    JSON)."""

    name: str
    data: JSON
    id: str = ""


# The server's rule for a caller tool's name (docs/http-api.md, "Caller tools").
_TOOL_NAME = re.compile(r"^[a-z0-9_-]{1,64}$")

#: Handler is a caller tool's implementation: it gets the call's arguments
#: and returns a JSON-able result or raises (the message becomes the error
#: the script sees). The asyncio client also takes coroutine functions, and
#: runs plain ones in a thread.
Handler = Callable[[JSON], Union[JSON, Awaitable[JSON]]]


@dataclass
class Tool:
    """Tool is a caller tool: a function of this program that a chain calls
    as ``tools.<name>(args)``.

    ``name`` is lower-case letters, digits, _ and - (at most 64);
    ``description`` (required, at most 200 characters) is what the model
    reads. ``input_schema`` (JSON Schema of an object; None: the tool takes
    no arguments) checks the arguments on the server before ``handler``
    sees them; ``output_schema`` (optional) checks each result; ``risk``
    (SAFE by default; LOW, MEDIUM, HIGH, CRITICAL) above the chain's
    max_risk_unapproved makes each call wait for an approval first;
    ``scopes`` are the scopes the chain's profile must grant. The server
    checks the declaration (400 invalid_caller_tools); the constructor
    checks the name and that there is a description.
    """

    name: str
    handler: Handler = field(repr=False)
    description: str = ""
    input_schema: Optional[Mapping[str, Any]] = None
    output_schema: Optional[Mapping[str, Any]] = None
    risk: Optional[str] = None
    scopes: Optional[Sequence[str]] = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _TOOL_NAME.match(self.name):
            raise ValueError("caller tool name %r: use a-z, 0-9, _ and -, at most 64" % (self.name,))
        if not self.description:
            raise ValueError("caller tool %s: give it a description, what the model reads" % self.name)
        if not callable(self.handler):
            raise ValueError("caller tool %s: handler is not callable" % self.name)

    def declaration(self) -> Dict[str, Any]:
        """declaration is the tool's entry of a request's ``caller_tools``."""
        d: Dict[str, Any] = {"name": self.name, "description": self.description}
        if self.input_schema is not None:
            d["input_schema"] = dict(self.input_schema)
        if self.output_schema is not None:
            d["output_schema"] = dict(self.output_schema)
        if self.risk is not None:
            d["risk"] = self.risk
        if self.scopes is not None:
            d["scopes"] = list(self.scopes)
        return d


def tool(name: Optional[str] = None, *, description: Optional[str] = None,
         input_schema: Optional[Mapping[str, Any]] = None, output_schema: Optional[Mapping[str, Any]] = None,
         risk: Optional[str] = None, scopes: Optional[Sequence[str]] = None) -> Callable[[Handler], Tool]:
    """tool is a decorator that makes a function a caller Tool; the name
    defaults to the function's and the description to its docstring::

        @tool(input_schema={"type": "object", "properties": {"email": {"type": "string"}}})
        def lookup_customer(args):
            "Find a customer by email."
            return {"id": 7}
    """

    def wrap(fn: Handler) -> Tool:
        doc = description if description is not None else " ".join((fn.__doc__ or "").split())
        return Tool(name=name or fn.__name__, handler=fn, description=doc, input_schema=input_schema,
                    output_schema=output_schema, risk=risk, scopes=scopes)

    return wrap
