"""What the synchronous and the asyncio client share, without I/O: the
connection settings, request bodies, decoding of answers, and the state of a
chain being followed (which event asks for which action)."""

from __future__ import annotations

import contextvars
import json
import urllib.parse
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Set, Tuple, Union

from .errors import UNEXPECTED_RESPONSE, AirlockError, ChainError
from .models import (ApprovalRequest, Chain, CredentialRequest, Event, Identity, Pending, PendingCall, Tool)

VERSION = "0.1.0"

# CALL holds the pending call a handler answers, for current_call.
CALL: "contextvars.ContextVar[Optional[PendingCall]]" = contextvars.ContextVar("airlock_call", default=None)


def current_call() -> Optional[PendingCall]:
    """current_call is, inside a caller tool's handler that run or resume
    called, the PendingCall it answers (its ``id``, ``seq``, ``chain_id``,
    ``deadline``, ...); None elsewhere. It follows the handler into the
    thread asyncio.to_thread runs a plain handler in."""
    return CALL.get()
USER_AGENT = "airlock-python/" + VERSION

# An answer body larger than this (bytes) is refused with UNEXPECTED_RESPONSE before
# it is decoded: a chain's result holds at most its final value (1 MiB by
# default), its logs (1 MiB) and its trace.
DEFAULT_MAX_RESPONSE_BYTES = 64 << 20


@dataclass(frozen=True)
class Endpoint:
    """Endpoint is a parsed base URL: scheme, host, port and path prefix."""

    scheme: str
    host: str
    port: int
    prefix: str

    @classmethod
    def parse(cls, base_url: str) -> "Endpoint":
        u = urllib.parse.urlsplit(base_url)
        if u.scheme not in ("http", "https") or not u.hostname:
            raise ValueError("base_url %r: want http://host[:port][/prefix] or https://..." % base_url)
        if u.query or u.fragment or u.username or u.password:
            raise ValueError("base_url %r: no query, fragment or user info; the key goes in api_key" % base_url)
        port = u.port or (443 if u.scheme == "https" else 80)
        return cls(u.scheme, u.hostname, port, u.path.rstrip("/"))

    @property
    def host_header(self) -> str:
        h = "[%s]" % self.host if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return h if self.port == default else "%s:%d" % (h, self.port)


def quote(segment: str) -> str:
    """quote escapes one path segment (an id, a ref) so that it cannot add
    segments or a query to the path."""
    return urllib.parse.quote(segment, safe="")


def headers(api_key: Optional[str], accept: str, has_body: bool, extra: Optional[Mapping[str, str]] = None
            ) -> Dict[str, str]:
    h = {"Accept": accept, "User-Agent": USER_AGENT}
    if has_body:
        h["Content-Type"] = "application/json"
    if api_key:
        h["Authorization"] = "Bearer " + api_key
    if extra:
        h.update(extra)
    return h


def encode(body: Any) -> bytes:
    """encode is a request body: compact JSON, NaN and Infinity refused."""
    return json.dumps(body, separators=(",", ":"), allow_nan=False, ensure_ascii=False).encode("utf-8")


def error_of(status: int, body: bytes) -> AirlockError:
    """error_of is the AirlockError for an answer the request did not want:
    the server's ``{"error": {"reason", "message"}}``, or UNEXPECTED_RESPONSE when
    the body is not that."""
    try:
        doc = json.loads(body.decode("utf-8"))
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        doc = None
    err = doc.get("error") if isinstance(doc, dict) else None
    if isinstance(err, dict) and isinstance(err.get("reason"), str) and err["reason"]:
        msg = err.get("message")
        return AirlockError(err["reason"], msg if isinstance(msg, str) else "", status, err)
    return AirlockError(UNEXPECTED_RESPONSE, "HTTP %d without an error body: %.200r" % (status, body), status)


def decode(status: int, content_type: str, body: bytes, want: Sequence[int]) -> Any:
    """decode is the JSON of an answer whose status is one of want; any
    other answer raises its AirlockError."""
    if status not in want:
        raise error_of(status, body)
    if content_type.split(";")[0].strip().lower() != "application/json":
        raise AirlockError(UNEXPECTED_RESPONSE, "HTTP %d answer is %r, not application/json" % (status, content_type),
                           status)
    try:
        return json.loads(body.decode("utf-8"))
    except (ValueError, RecursionError) as e:  # nested deeper than Python recurses
        raise AirlockError(UNEXPECTED_RESPONSE, "HTTP %d answer is not JSON: %s" % (status, e), status) from None


def check_text(status: int, body: bytes, want: int = 200) -> str:
    if status != want:
        raise error_of(status, body)
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as e:
        raise AirlockError(UNEXPECTED_RESPONSE, "HTTP %d answer is not UTF-8: %s" % (status, e), status) from None


def field(doc: Any, key: str) -> List[Any]:
    """field is the array doc[key] of a list answer ({"calls": [...]})."""
    v = doc.get(key) if isinstance(doc, dict) else None
    if not isinstance(v, list):
        raise AirlockError(UNEXPECTED_RESPONSE, "the answer has no array %r: %.200r" % (key, doc))
    return v


ToolSpec = Union[Tool, Mapping[str, Any]]


def declarations(tools: Optional[Sequence[ToolSpec]]) -> List[Dict[str, Any]]:
    """declarations are the ``caller_tools`` of a request: a Tool's
    declaration, or a mapping taken as one."""
    out = []
    for t in tools or ():
        out.append(t.declaration() if isinstance(t, Tool) else dict(t))
    return out


def tool_map(tools: Optional[Sequence[Tool]]) -> Dict[str, Tool]:
    """tool_map indexes the caller tools that answer calls by name."""
    m: Dict[str, Tool] = {}
    for t in tools or ():
        if not isinstance(t, Tool):
            raise TypeError("tools: want Tool values (airlock_client.Tool or @tool), got %r" % (t,))
        if t.name in m:
            raise ValueError("tools: two caller tools are named %s" % t.name)
        m[t.name] = t
    return m


def submit_body(script: str, *, language: Optional[str], tools: Optional[Sequence[ToolSpec]],
                server_tools: Optional[Sequence[str]], policy: Optional[Mapping[str, Any]],
                limits: Optional[Mapping[str, Any]], guest: Optional[Mapping[str, Any]], input: Any,
                tenant: Optional[str], identity: Optional[Identity] = None) -> Dict[str, Any]:
    body: Dict[str, Any] = {"script": script}
    if language:
        body["language"] = language
    if server_tools is not None:
        body["tools"] = list(server_tools)
    decl = declarations(tools)
    if decl:
        body["caller_tools"] = decl
    if policy:
        body["policy"] = dict(policy)
    if limits:
        body["limits"] = dict(limits)
    if guest:
        body["guest"] = dict(guest)
    if input is not None:
        body["input"] = input
    if tenant:
        body["tenant"] = tenant
    if identity is not None:
        body["identity"] = identity.to_json()
    return body


IdentityLike = Union[Identity, Mapping[str, Any]]


def identity_of(v: Optional[IdentityLike]) -> Optional[Identity]:
    """identity_of is v as an Identity (None stays None)."""
    return None if v is None else Identity.of(v)


def scrubbed(e: AirlockError, identity: Optional[Identity]) -> AirlockError:
    """scrubbed is e with the identity's tokens replaced by [REDACTED] in
    its message and body: an error the client raises never holds a token,
    even when a server (or something posing as one) echoed it."""
    if identity is None:
        return e
    toks = identity.tokens()

    def clean(v: Any) -> Any:
        if isinstance(v, str):
            for t in toks:
                v = v.replace(t, "[REDACTED]")
            return v
        if isinstance(v, dict):
            return {clean(k): clean(x) for k, x in v.items()}
        if isinstance(v, list):
            return [clean(x) for x in v]
        return v

    if not any(t in str(e) or t in repr(e.body) for t in toks):
        return e
    return AirlockError(e.reason, clean(e.message), e.status, clean(e.body))


def check_no_content(status: int, body: bytes, want: int = 204) -> None:
    """check_no_content accepts an answer of status want and raises the
    AirlockError of any other."""
    if status != want:
        raise error_of(status, body)


_NO_RESULT = object()


def answer_body(args_hash: str, result: Any = _NO_RESULT, error: Optional[str] = None) -> Dict[str, Any]:
    """answer_body is the body of POST /v1/calls/{id}: exactly one of
    result or error."""
    if (result is _NO_RESULT) == (error is None):
        raise ValueError("answer: give exactly one of result and error")
    if error is not None:
        return {"args_hash": args_hash, "error": str(error)}
    return {"args_hash": args_hash, "result": result}


def decision_word(d: Union[bool, str]) -> str:
    if d is True or d == "approve":
        return "approve"
    if d is False or d == "deny":
        return "deny"
    raise ValueError("decision: want True/'approve' or False/'deny', got %r" % (d,))


def handler_error(e: BaseException) -> str:
    """handler_error is the text the script sees when a handler raised."""
    return str(e) or type(e).__name__


def result_answer(args_hash: str, result: Any) -> Dict[str, Any]:
    """result_answer is the answer for what a handler returned, or an error
    answer when it cannot be sent as JSON."""
    try:
        encode(result)
    except (TypeError, ValueError) as e:
        return answer_body(args_hash, error="the caller tool's result is not JSON: %s" % e)
    return answer_body(args_hash, result)


# Refusals of an answer that leave the call waiting because of what was
# answered: the caller answers an error instead, so that the script does not
# wait until call_timeout for a result that can never be taken.
RESULT_REFUSED = frozenset({"result_too_large", "output_schema_mismatch"})
# Refusals that say the call needs no answer from us any more.
CALL_SETTLED = frozenset({"already_answered", "call_expired", "call_not_found"})
# Refusals of a decision that say it needs none from us any more.
APPROVAL_SETTLED = frozenset({"already_decided", "approval_expired", "approval_not_found"})
# Refusals of a fresh identity that say the chain needs none from us any
# more: it ended, or it is parked for something else (another process
# resumed it first). For a parked chain's request, running_elsewhere too:
# another process took it up.
IDENTITY_SETTLED = frozenset({"chain_finished", "chain_parked"})


def identity_settled(e: AirlockError, req: CredentialRequest) -> bool:
    """identity_settled says the refusal e of a fresh identity for req
    leaves nothing to do."""
    return e.reason in IDENTITY_SETTLED or (req.parked and e.reason == "running_elsewhere")


# Failures a follow retries a request after (its answers, decisions and
# reads): the fleet's bucket could not be read or written, or no answer
# came (a lost answer to a POST is safe to repeat: the first answer wins,
# and a repeat is refused as already answered).
RETRIED = frozenset({"store_unavailable", "network_error"})
#: RETRY_DELAYS are the pauses (seconds) before each retry.
RETRY_DELAYS = (0.25, 1.0, 2.0)


def refused_text(e: AirlockError) -> str:
    return "the caller's result was refused (%s): %s" % (e.reason, e.message)


@dataclass
class Serve:
    """Serve is an action of a follow: answer call ``id`` or decide approval
    ``id``. ``item`` is what the event carried; None means read it first
    (GET /v1/calls/{id} or /v1/approvals/{id}), and so does ``verify``."""

    kind: str  # "call", "approval" or "credential"
    id: str
    item: Optional[Union[PendingCall, ApprovalRequest, CredentialRequest]] = None
    verify: bool = False


class Follow:
    """Follow is the state of a chain being followed: the calls and requests
    already taken up (an event replayed after a reconnect, or a parked
    chain's entry seen again, is taken up once), and whether it is parked.

    ``attached`` says the follow started on a chain that was already running
    (wait): then a call_pending event may be a replay of a call answered
    before, and the call is read again before its handler runs.

    A credential_required event of a call that parked its chain is only
    noted (its audience): the chain's pending entry of kind credential asks
    instead, once the chain is parked (an identity sent before would find
    it still running), and only while it is (a park settled before, seen in
    a replay, is not asked about again).

    ``credentials`` says a handler asks for fresh identities: a
    credential_required event of a running chain is taken up once per
    refused call (its seq), a parked chain's pending credential once per
    park (its id: a call refused again after it resumed parks anew).
    """

    def __init__(self, chain_id: str, tools: Mapping[str, Tool], approvals: bool, attached: bool,
                 credentials: bool = False) -> None:
        self.chain_id = chain_id
        self.tools = tools
        self.approvals = approvals
        self.attached = attached
        self.credentials = credentials
        self.parked = False
        self._taken: Set[Tuple[str, str]] = set()
        self._audiences: Dict[int, str] = {}  # by seq, from credential_required events

    def _take(self, kind: str, id: str) -> bool:
        if (kind, id) in self._taken:
            return False
        self._taken.add((kind, id))
        return True

    def event(self, ev: Event) -> Tuple[List[Serve], Optional[Chain]]:
        """event returns what ev asks for, and the final chain at done."""
        if ev.name == "done":
            return [], Chain.from_json(ev.data)
        if ev.name == "call_pending":
            call = PendingCall.from_json(ev.data)
            # A replayed call that was answered or ended has no args.
            if (call.chain_id == self.chain_id and call.has_args and call.tool in self.tools
                    and self._take("call", call.id)):
                return [Serve("call", call.id, call, verify=self.attached)], None
            return [], None
        if ev.name == "approval_required":
            req = ApprovalRequest.from_json(ev.data)
            # A replayed request that was settled has neither args nor args_ref.
            if self.approvals and (req.has_args or req.args_ref) and self._take("approval", req.id):
                return [Serve("approval", req.id, req)], None
            return [], None
        if ev.name == "credential_required":
            req = CredentialRequest.from_event(self.chain_id, ev.data)
            if req.audience:
                self._audiences[req.seq] = req.audience
            if self.credentials and not req.parked and self._take("credential", str(req.seq)):
                return [Serve("credential", str(req.seq), req)], None
            return [], None
        if ev.name == "status":
            return self.view(Chain.from_json(ev.data)), None
        return [], None

    def view(self, chain: Chain) -> List[Serve]:
        """view returns what a chain's view asks for: a parked chain's
        pending entries not taken up yet."""
        self.parked = chain.status == "parked"
        out = []
        for p in chain.pending:
            if p.kind == "call" and p.tool in self.tools and self._take("call", p.id):
                out.append(Serve("call", p.id))
            elif p.kind == "approval" and self.approvals and self._take("approval", p.id):
                out.append(Serve("approval", p.id))
            elif p.kind == "credential" and self.credentials and self._take("credential", p.id):
                req = CredentialRequest(chain_id=self.chain_id, seq=p.seq, tool=p.tool, reason=p.rule,
                                        audience=p.audience or self._audiences.get(p.seq, ""), parked=True, raw=p.raw)
                out.append(Serve("credential", p.id, req))
        return out

    def calls(self, calls: Sequence[PendingCall]) -> List[Serve]:
        """calls returns what a listing of the chain's pending calls asks
        for (GET /v1/chains/{id}/calls, after a reconnect)."""
        # A listing may leave a call's args out (it holds at most 4 MiB of
        # them): such a call is read by id first.
        return [Serve("call", c.id, c if c.has_args else None) for c in calls
                if c.tool in self.tools and self._take("call", c.id)]


def pending_of(v: Any) -> List[Pending]:
    return [Pending.from_json(p) for p in (v or [])]


def event_of(name: str, data: str, id: str) -> Event:
    """event_of decodes one stream event; its data must be JSON."""
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError) as e:
        raise AirlockError(UNEXPECTED_RESPONSE, "event %r has data that is not JSON: %s" % (name, e)) from None
    return Event(name=name, data=doc, id=id)


def ended_ok(chain: Chain) -> Chain:
    """ended_ok returns a chain that ended ok and raises ChainError for any
    other."""
    if chain.status != "ok":
        raise ChainError(chain)
    return chain
