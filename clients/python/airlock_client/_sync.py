"""The synchronous client: http.client, and threads for caller tools."""

from __future__ import annotations

import http.client
import queue
import socket
import ssl
import threading
import time
from typing import IO, Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from . import _core
from .errors import CLIENT_CANCELLED, CLIENT_TIMEOUT, NETWORK_ERROR, UNEXPECTED_RESPONSE, WAIT_TIMEOUT, AirlockError
from .models import (ApprovalRequest, CallAnswer, Chain, ChainSummary, CredentialRequest, Decision, Event, Identity,
                     PendingCall, Tool)
from .sse import SSEParser

#: ApprovalHandler decides an approval request: True or "approve", False or
#: "deny", None to leave it to someone else.
ApprovalHandler = Callable[[ApprovalRequest], Union[bool, str, None]]
#: CredentialHandler returns a fresh identity (an Identity or a mapping
#: with subject_token) for a chain that needs one, or None to leave it to
#: someone else.
CredentialHandler = Callable[[CredentialRequest], Optional[_core.IdentityLike]]


class Airlock:
    """Airlock is a client of one airlock server (``airlock serve``).

    ``base_url`` is the server's address (a path prefix is kept);
    ``api_key`` its bearer key, None for a server without keys.
    ``timeout`` (seconds, default 30) bounds each request that is not a
    stream; ``stream_timeout`` (default 60, more than the server's 15 s
    keep-alive) is how long a stream may stay silent before it is opened
    again. ``ssl_context`` is for https (default: the system's trust).
    ``max_response_bytes`` caps what one answer or one stream line may hold.

    Every method is safe to call from several threads at once: each request
    opens its own connection. ``run`` and ``wait`` start a thread that
    reads the chain's events and one thread per caller-tool call or approval
    they answer; a handler still running when they return keeps its thread
    until it returns (its late answer is refused and dropped).

    Every failure raises AirlockError: the server's reason code, or one of
    UNEXPECTED_RESPONSE, NETWORK_ERROR, CLIENT_TIMEOUT, CLIENT_CANCELLED.
    """

    def __init__(self, base_url: str = "http://127.0.0.1:8080", api_key: Optional[str] = None, *,
                 timeout: float = 30.0, stream_timeout: float = 60.0, ssl_context: Optional[ssl.SSLContext] = None,
                 max_response_bytes: int = _core.DEFAULT_MAX_RESPONSE_BYTES) -> None:
        self.endpoint = _core.Endpoint.parse(base_url)
        self.api_key = api_key
        self.timeout = timeout
        self.stream_timeout = stream_timeout
        self.ssl_context = ssl_context
        self.max_response_bytes = max_response_bytes
        #: poll_interval (seconds) is how often a parked chain is read while
        #: run or wait follows it, for what it waits for.
        self.poll_interval = 1.0

    # -- transport --------------------------------------------------------

    def _connect(self, timeout: float) -> http.client.HTTPConnection:
        e = self.endpoint
        if e.scheme == "https":
            return http.client.HTTPSConnection(e.host, e.port, timeout=timeout,
                                               context=self.ssl_context or ssl.create_default_context())
        return http.client.HTTPConnection(e.host, e.port, timeout=timeout)

    def _open(self, method: str, path: str, body: Any = None, *, accept: str = "application/json",
              extra: Optional[Mapping[str, str]] = None, timeout: Optional[float] = None
              ) -> Tuple[http.client.HTTPConnection, http.client.HTTPResponse, Optional[socket.socket]]:
        data = _core.encode(body) if body is not None else None
        h = _core.headers(self.api_key, accept, data is not None, extra)
        conn = self._connect(timeout if timeout is not None else self.timeout)
        try:
            conn.request(method, self.endpoint.prefix + path, body=data, headers=h)
            # getresponse may hand the socket to the response and forget it
            # (a body read to the end of the connection): keep it for close.
            sock = conn.sock
            return conn, conn.getresponse(), sock
        except (OSError, http.client.HTTPException) as e:
            conn.close()
            raise AirlockError(NETWORK_ERROR, "%s %s: %s" % (method, path, e)) from None

    def _read(self, conn: http.client.HTTPConnection, resp: http.client.HTTPResponse) -> bytes:
        buf = bytearray()
        try:
            # In pieces: read(n) of some Pythons allocates n bytes first.
            while len(buf) <= self.max_response_bytes:
                chunk = resp.read(min(1 << 16, self.max_response_bytes + 1 - len(buf)))
                if not chunk:
                    break
                buf += chunk
            data = bytes(buf)
        except (OSError, http.client.HTTPException) as e:
            raise AirlockError(NETWORK_ERROR, "reading the answer: %s" % e) from None
        finally:
            resp.close()
            conn.close()
        if len(data) > self.max_response_bytes:
            raise AirlockError(UNEXPECTED_RESPONSE, "the answer is larger than %d bytes" % self.max_response_bytes,
                               resp.status)
        return data

    def _json(self, method: str, path: str, body: Any = None, want: Sequence[int] = (200,),
              timeout: Optional[float] = None) -> Any:
        conn, resp, _ = self._open(method, path, body, timeout=timeout)
        data = self._read(conn, resp)
        return _core.decode(resp.status, resp.getheader("Content-Type", ""), data, want)

    # -- chains -----------------------------------------------------------

    def submit(self, script: str, *, tools: Optional[Sequence[_core.ToolSpec]] = None,
               language: Optional[str] = None, server_tools: Optional[Sequence[str]] = None,
               policy: Optional[Mapping[str, Any]] = None, limits: Optional[Mapping[str, Any]] = None,
               guest: Optional[Mapping[str, Any]] = None, input: Any = None, tenant: Optional[str] = None,
               identity: Optional[_core.IdentityLike] = None) -> Chain:
        """submit starts a chain and returns at once (POST /v1/chains?async=1).

        ``tools`` are its caller tools (Tool values or their declarations),
        answered by whoever follows it (``wait``); ``server_tools`` selects
        the server's configured tools (default all); ``policy``, ``limits``
        and ``guest`` are the request's objects of the same names
        (docs/http-api.md); ``language`` javascript (default), typescript or
        wasm (``script`` then is the module in base64, ``input`` its input).
        ``identity`` (an Identity, or a mapping with subject_token,
        subject_token_type, actor) is the delegated identity the chain acts
        for (docs/identity.md); no error raised holds its tokens.
        """
        ident = _core.identity_of(identity)
        body = _core.submit_body(script, language=language, tools=tools, server_tools=server_tools, policy=policy,
                                 limits=limits, guest=guest, input=input, tenant=tenant, identity=ident)
        try:
            return Chain.from_json(self._json("POST", "/v1/chains?async=1", body, want=(202,)))
        except AirlockError as e:
            raise _core.scrubbed(e, ident) from None

    def set_identity(self, chain_id: str, identity: _core.IdentityLike) -> None:
        """set_identity hands a chain a fresh delegated identity (POST
        /v1/chains/{id}/identity; 204): its next calls of tools with an
        audience act for it, and a chain parked waiting for one resumes on
        this process. Refusals: invalid_request, chain_not_found,
        chain_finished, chain_parked (parked for something else, or
        another process resumed it first), running_elsewhere. No error
        raised holds its tokens."""
        ident = Identity.of(identity)
        try:
            conn, resp, _ = self._open("POST", "/v1/chains/%s/identity" % _core.quote(chain_id), ident.to_json())
            _core.check_no_content(resp.status, self._read(conn, resp))
        except AirlockError as e:
            raise _core.scrubbed(e, ident) from None

    def chain(self, chain_id: str) -> Chain:
        """chain reads a chain's status and result (GET /v1/chains/{id})."""
        return Chain.from_json(self._json("GET", "/v1/chains/" + _core.quote(chain_id)))

    def chains(self, status: Optional[str] = None) -> List[ChainSummary]:
        """chains lists the tenant's chains, newest first; ``status`` keeps
        those of one status (e.g. "parked")."""
        q = "?status=" + _core.quote(status) if status else ""
        return [ChainSummary.from_json(c) for c in _core.field(self._json("GET", "/v1/chains" + q), "chains")]

    def cancel(self, chain_id: str) -> Chain:
        """cancel cancels a running or parked chain (DELETE /v1/chains/{id})
        and returns it as it is then (ended, or still ending)."""
        return Chain.from_json(self._json("DELETE", "/v1/chains/" + _core.quote(chain_id), want=(200, 202)))

    def events(self, chain_id: str, *, last_event_id: Optional[str] = None, reconnect: bool = True
               ) -> "EventStream":
        """events streams a chain's events (GET /v1/chains/{id}/events) from
        its start, or after ``last_event_id``, until ``done``. A broken
        stream is opened again with Last-Event-ID (unless reconnect is
        False). The stream is an iterator of Event; close() ends it, also
        from another thread, and so does leaving ``with``."""
        return EventStream(self, chain_id, last_event_id or "", reconnect)

    # -- approvals --------------------------------------------------------

    def approvals(self) -> List[ApprovalRequest]:
        """approvals lists the tenant's pending approval requests, oldest first."""
        return [ApprovalRequest.from_json(a) for a in _core.field(self._json("GET", "/v1/approvals"), "approvals")]

    def approval(self, request_id: str) -> ApprovalRequest:
        """approval reads one pending approval request."""
        return ApprovalRequest.from_json(self._json("GET", "/v1/approvals/" + _core.quote(request_id)))

    def decide(self, request: Union[ApprovalRequest, str], decision: Union[bool, str],
               args_hash: Optional[str] = None) -> Decision:
        """decide approves (True, "approve") or denies (False, "deny") a
        request, bound to its args_hash (taken from request when it is an
        ApprovalRequest). Refusals: args_mismatch, already_decided,
        approval_expired, approval_not_found, forbidden_role."""
        rid, h = _target(request, args_hash)
        body = {"decision": _core.decision_word(decision), "args_hash": h}
        return Decision.from_json(self._json("POST", "/v1/approvals/" + _core.quote(rid), body))

    # -- caller tools -----------------------------------------------------

    def calls(self, chain_id: Optional[str] = None) -> List[PendingCall]:
        """calls lists the pending caller-tool calls of one chain, or of
        every chain of the tenant."""
        path = "/v1/chains/%s/calls" % _core.quote(chain_id) if chain_id else "/v1/calls"
        return [PendingCall.from_json(c) for c in _core.field(self._json("GET", path), "calls")]

    def call(self, call_id: str) -> PendingCall:
        """call reads one pending call (404 call_not_found once answered)."""
        return PendingCall.from_json(self._json("GET", "/v1/calls/" + _core.quote(call_id)))

    def answer(self, call: Union[PendingCall, str], result: Any = _core._NO_RESULT, *, error: Optional[str] = None,
               args_hash: Optional[str] = None) -> CallAnswer:
        """answer answers a pending call with a result (any JSON) or an
        error (text the script's ToolError carries), bound to its args_hash
        (taken from call when it is a PendingCall). Refusals: args_mismatch,
        already_answered, call_expired, call_not_found, result_too_large,
        output_schema_mismatch, invalid_request."""
        cid, h = _target(call, args_hash)
        body = _core.answer_body(h, result, error)
        return CallAnswer.from_json(self._json("POST", "/v1/calls/" + _core.quote(cid), body))

    # -- tools, artifacts -------------------------------------------------

    def declarations(self, *, tools: Optional[Sequence[_core.ToolSpec]] = None,
                     server_tools: Optional[Sequence[str]] = None) -> str:
        """declarations is the TypeScript declaration of the ``tools`` object
        a chain with these caller tools and this selection of the server's
        tools would see (POST /v1/tools.d.ts), for a model's prompt."""
        body: Dict[str, Any] = {}
        if server_tools is not None:
            body["tools"] = list(server_tools)
        decl = _core.declarations(tools)
        if decl:
            body["caller_tools"] = decl
        conn, resp, _ = self._open("POST", "/v1/tools.d.ts", body, accept="text/plain, application/typescript")
        return _core.check_text(resp.status, self._read(conn, resp))

    def artifact(self, ref: str, dest: Optional[IO[bytes]] = None) -> Union[bytes, int]:
        """artifact downloads an artifact (GET /v1/artifacts/{ref}): its
        bytes, or, with ``dest`` (a binary file), copies them there in
        pieces and returns how many were written (no size cap then)."""
        conn, resp, _ = self._open("GET", "/v1/artifacts/" + _core.quote(ref), accept="*/*")
        if resp.status != 200 or dest is None:
            data = self._read(conn, resp)
            if resp.status != 200:
                raise _core.error_of(resp.status, data)
            return data
        n = 0
        try:
            while True:
                chunk = resp.read(1 << 16)
                if not chunk:
                    return n
                dest.write(chunk)
                n += len(chunk)
        except (OSError, http.client.HTTPException) as e:
            raise AirlockError(NETWORK_ERROR, "downloading %s: %s" % (ref, e)) from None
        finally:
            conn.close()

    # -- following --------------------------------------------------------

    def run(self, script: str, *, tools: Optional[Sequence[Tool]] = None,
            on_approval: Optional[ApprovalHandler] = None, approver: Optional["Airlock"] = None,
            on_event: Optional[Callable[[Event], None]] = None, on_submitted: Optional[Callable[[Chain], None]] = None,
            timeout: Optional[float] = None, cancel: Optional[threading.Event] = None,
            language: Optional[str] = None, server_tools: Optional[Sequence[str]] = None,
            policy: Optional[Mapping[str, Any]] = None, limits: Optional[Mapping[str, Any]] = None,
            guest: Optional[Mapping[str, Any]] = None, identity: Optional[_core.IdentityLike] = None,
            on_credential_required: Optional[CredentialHandler] = None) -> Chain:
        """run submits a chain with caller ``tools``, answers their calls and
        its approvals until it ends, and returns it once it ended ok; a
        chain that ends otherwise raises ChainError (its ``chain`` holds
        the whole result).

        Each call_pending runs its tool's handler in a thread of its own
        (several at once for Promise.all) and posts its return value, or,
        when it raised, its message as the error the script sees. A result
        the server refuses (result_too_large, output_schema_mismatch) is
        answered with an error that names the refusal instead, so that the
        script does not wait for call_timeout. ``on_approval`` decides each
        approval request (True/"approve", False/"deny", None: leave it to
        someone else), posted through ``approver`` (a client with a key of
        role approver; default this one). ``on_event`` sees every event,
        ``on_submitted`` the chain as submitted (its id). A parked chain
        (fleet, park mode) is followed wherever it resumes.

        ``identity`` is the delegated identity the chain acts for.
        ``on_credential_required`` is asked, once per refused call, for a
        fresh one when a call of a tool with an audience was refused for
        want of a usable identity (a credential_required event, or a parked
        chain's pending entry of kind credential): it gets a
        CredentialRequest and returns an Identity (or a mapping), which run
        hands the chain with set_identity, or None to leave it to someone
        else. A refusal that leaves nothing to do (chain_finished,
        chain_parked) is dropped; any other fails the run.

        ``timeout`` (seconds, default none) and ``cancel`` (set it from
        another thread) stop the wait: run then cancels the chain and raises
        CLIENT_TIMEOUT or CLIENT_CANCELLED. On any error run cancels the
        chain before it raises. The other arguments are submit's.
        """
        tmap = _core.tool_map(tools)
        ch = self.submit(script, tools=tools, language=language, server_tools=server_tools, policy=policy,
                         limits=limits, guest=guest, identity=identity)
        try:
            if on_submitted is not None:
                on_submitted(ch)
            final = self._follow(ch.id, tmap, on_approval, approver, on_event, timeout, cancel, attached=False,
                                 on_credential=on_credential_required)
        except BaseException:
            try:
                self._json("DELETE", "/v1/chains/" + _core.quote(ch.id), want=(200, 202), timeout=10)
            except AirlockError:
                pass
            raise
        return _core.ended_ok(final)

    def resume(self, chain_id: str, *, tools: Optional[Sequence[Tool]] = None,
               on_approval: Optional[ApprovalHandler] = None, approver: Optional["Airlock"] = None,
               on_event: Optional[Callable[[Event], None]] = None, timeout: Optional[float] = None,
               cancel: Optional[threading.Event] = None,
               on_credential_required: Optional[CredentialHandler] = None) -> Chain:
        """resume follows a chain that already runs or is parked (submitted
        by anyone of the tenant, to this process or, in a fleet, another),
        answers its calls to ``tools``, its approvals and its need of fresh
        identities (``on_credential_required``) as run does, and
        returns it once it ended ok (ChainError otherwise). A call seen in
        the stream's replay is read again first, so a handler runs only for
        a call that still waits. ``timeout`` and ``cancel`` stop it
        (CLIENT_TIMEOUT, CLIENT_CANCELLED) but leave the chain be."""
        return _core.ended_ok(self._follow(chain_id, _core.tool_map(tools), on_approval, approver, on_event,
                                           timeout, cancel, attached=True, on_credential=on_credential_required))

    def wait(self, chain_id: str, *, on_event: Optional[Callable[[Event], None]] = None,
             timeout: Optional[float] = None, cancel: Optional[threading.Event] = None) -> Chain:
        """wait follows a chain, across parks and reconnects, and returns it
        once it ended, whatever its status; it answers nothing. ``timeout``
        and ``cancel`` stop it (CLIENT_TIMEOUT, CLIENT_CANCELLED)."""
        return self._follow(chain_id, {}, None, None, on_event, timeout, cancel, attached=True)

    def wait_parked(self, chain_id: str, *, timeout: float = 30.0, interval: float = 0.1) -> Chain:
        """wait_parked reads the chain every ``interval`` seconds until it
        is parked with something pending, or ended, and returns it;
        WAIT_TIMEOUT after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            ch = self.chain(chain_id)
            if (ch.status == "parked" and ch.pending) or ch.done:
                return ch
            if time.monotonic() > deadline:
                raise AirlockError(WAIT_TIMEOUT, "chain %s is %s, not parked, after %gs" % (chain_id, ch.status,
                                                                                          timeout))
            time.sleep(interval)

    def _follow(self, chain_id: str, tools: Dict[str, Tool], on_approval: Optional[ApprovalHandler],
                approver: Optional["Airlock"], on_event: Optional[Callable[[Event], None]], timeout: Optional[float],
                cancel: Optional[threading.Event], attached: bool,
                on_credential: Optional[CredentialHandler] = None) -> Chain:
        deadline = time.monotonic() + timeout if timeout is not None else None
        fol = _core.Follow(chain_id, tools, on_approval is not None, attached, credentials=on_credential is not None)
        inbox: "queue.Queue[Tuple[str, Any]]" = queue.Queue()
        stream = EventStream(self, chain_id, "", True)
        stream.on_reconnect = lambda: self._spawn(inbox, self._sweep, fol)

        def read() -> None:
            try:
                for ev in stream:
                    inbox.put(("event", ev))
                inbox.put(("end", None))
            except BaseException as e:  # handed to the following thread
                inbox.put(("lost", e))

        threading.Thread(target=read, name="airlock-events-" + chain_id, daemon=True).start()
        next_poll = 0.0
        try:
            while True:
                if cancel is not None and cancel.is_set():
                    raise AirlockError(CLIENT_CANCELLED, "chain %s: the wait was cancelled" % chain_id)
                now = time.monotonic()
                if deadline is not None and now >= deadline:
                    raise AirlockError(CLIENT_TIMEOUT, "chain %s did not end within %gs" % (chain_id, timeout))
                if fol.parked and now >= next_poll:
                    next_poll = now + self.poll_interval
                    self._spawn(inbox, self._poll, fol)
                try:
                    kind, v = inbox.get(timeout=0.05 if cancel is not None or fol.parked else 0.25)
                except queue.Empty:
                    continue
                if kind == "event":
                    if on_event is not None:
                        on_event(v)
                    serves, final = fol.event(v)
                    if final is not None:
                        return final
                    for s in serves:
                        self._spawn(inbox, self._serve, fol, s, on_approval, approver or self, on_credential)
                elif kind in ("chain", "calls"):
                    if kind == "chain" and v.done:
                        return v
                    for s in fol.view(v) if kind == "chain" else fol.calls(v):
                        self._spawn(inbox, self._serve, fol, s, on_approval, approver or self, on_credential)
                elif kind == "error":
                    raise v
                elif kind in ("end", "lost"):
                    # The stream ended without done, or could not be kept
                    # open: the chain may have ended all the same.
                    if kind == "lost" and not (isinstance(v, AirlockError) and v.reason == NETWORK_ERROR):
                        raise v
                    ch = self.chain(chain_id)
                    if ch.done:
                        return ch
                    if v is not None:
                        raise v
                    raise AirlockError(UNEXPECTED_RESPONSE, "the stream of chain %s ended before done" % chain_id)
        finally:
            stream.close()

    @staticmethod
    def _spawn(inbox: "queue.Queue[Tuple[str, Any]]", fn: Callable[..., Any], *args: Any) -> None:
        def work() -> None:
            try:
                fn(inbox, *args)
            except BaseException as e:
                inbox.put(("error", e))

        threading.Thread(target=work, name="airlock-serve", daemon=True).start()

    def _poll(self, inbox: "queue.Queue[Tuple[str, Any]]", fol: _core.Follow) -> None:
        try:
            inbox.put(("chain", self.chain(fol.chain_id)))
        except AirlockError:
            pass  # the stream or the next poll tells

    def _sweep(self, inbox: "queue.Queue[Tuple[str, Any]]", fol: _core.Follow) -> None:
        if fol.tools:
            try:
                inbox.put(("calls", self._retried(self.calls, fol.chain_id)))
            except AirlockError:
                pass  # a call it would have found still comes as an event or a parked entry

    @staticmethod
    def _retried(fn: Callable[..., Any], *args: Any) -> Any:
        """_retried calls fn, again after each failure in _core.RETRIED."""
        for pause in _core.RETRY_DELAYS + (None,):
            try:
                return fn(*args)
            except AirlockError as e:
                if pause is None or e.reason not in _core.RETRIED:
                    raise
                time.sleep(pause)

    def _serve(self, inbox: "queue.Queue[Tuple[str, Any]]", fol: _core.Follow, s: _core.Serve,
               on_approval: Optional[ApprovalHandler], approver: "Airlock",
               on_credential: Optional[CredentialHandler] = None) -> None:
        if s.kind == "credential":
            assert on_credential is not None and isinstance(s.item, CredentialRequest)
            fresh = on_credential(s.item)
            if fresh is None:
                return
            try:
                self._retried(self.set_identity, fol.chain_id, fresh)
            except AirlockError as e:
                if not _core.identity_settled(e, s.item):
                    raise
            return
        if s.kind == "approval":
            assert on_approval is not None
            try:
                req = s.item if isinstance(s.item, ApprovalRequest) else self._retried(self.approval, s.id)
                d = on_approval(req)
                if d is not None:
                    self._retried(approver.decide, req, d)
            except AirlockError as e:
                if e.reason not in _core.APPROVAL_SETTLED:
                    raise
            return
        try:
            call = s.item if isinstance(s.item, PendingCall) and not s.verify else self._retried(self.call, s.id)
        except AirlockError as e:
            if e.reason in _core.CALL_SETTLED:
                return
            raise
        tool = fol.tools[call.tool]
        token = _core.CALL.set(call)
        try:
            body = _core.result_answer(call.args_hash, tool.handler(call.args))
        except Exception as e:
            body = _core.answer_body(call.args_hash, error=_core.handler_error(e))
        finally:
            _core.CALL.reset(token)
        path = "/v1/calls/" + _core.quote(call.id)
        try:
            try:
                self._retried(self._json, "POST", path, body)
            except AirlockError as e:
                if e.reason not in _core.RESULT_REFUSED:
                    raise
                self._retried(self._json, "POST", path, _core.answer_body(call.args_hash, error=_core.refused_text(e)))
        except AirlockError as e:
            if e.reason not in _core.CALL_SETTLED:
                raise


def _target(item: Union[ApprovalRequest, PendingCall, str], args_hash: Optional[str]) -> Tuple[str, str]:
    if isinstance(item, (ApprovalRequest, PendingCall)):
        return item.id, args_hash or item.args_hash
    if not args_hash:
        raise ValueError("args_hash is required with an id")
    return item, args_hash


class EventStream:
    """EventStream is an iterator over a chain's events (Airlock.events)."""

    def __init__(self, client: Airlock, chain_id: str, last_event_id: str, reconnect: bool) -> None:
        self._client = client
        self._chain_id = chain_id
        self._parser = SSEParser(client.max_response_bytes, last_event_id)
        self._reconnect = reconnect
        self._lock = threading.Lock()
        self._conn: Optional[http.client.HTTPConnection] = None
        self._sock: Optional[socket.socket] = None
        self._reading = False
        self._closed = False
        self._done = False
        self._pending: List[Event] = []
        self._resp: Optional[http.client.HTTPResponse] = None
        self._failures = 0
        #: on_reconnect is called after the stream was opened again.
        self.on_reconnect: Optional[Callable[[], None]] = None
        #: max_failures is how many attempts in a row to reopen a broken
        #: stream may fail (0.25 s, 0.5 s, 1 s, 2 s apart) before
        #: NETWORK_ERROR.
        self.max_failures = 5

    @property
    def last_event_id(self) -> str:
        """last_event_id is the id of the last event received."""
        return self._parser.last_id

    def __iter__(self) -> Iterator[Event]:
        return self

    def __enter__(self) -> "EventStream":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __next__(self) -> Event:
        try:
            ev = self._next()
        except BaseException:
            self._release()
            raise
        if ev is None:
            self._release()
            raise StopIteration
        if ev.name == "done":
            self._done = True
            self._pending.clear()
            self._release()
        return ev

    def _next(self) -> Optional[Event]:
        """_next returns the next event, None at the end of the stream."""
        while True:
            if self._pending:
                return self._pending.pop(0)
            if self._done or self._closed:
                return None
            if self._resp is None:
                if not self._open():
                    return None
                continue
            with self._lock:
                if self._closed:
                    return None
                self._reading = True
                resp = self._resp
            err: Optional[BaseException] = None
            try:
                chunk = resp.read1(1 << 16)
            except (OSError, http.client.HTTPException) as e:
                chunk, err = b"", e
            finally:
                with self._lock:
                    self._reading = False
            if chunk:
                before = self._parser.last_id
                self._pending.extend(_core.event_of(n, d, i) for n, d, i in self._parser.feed(chunk))
                if self._parser.last_id != before:
                    self._failures = 0  # the stream moved on: a break after this is a new one
                continue
            if self._closed:
                return None
            self._drop()
            if not self._reconnect:
                raise AirlockError(NETWORK_ERROR, "the stream of chain %s broke: %s"
                                   % (self._chain_id, err or "closed before done"))

    def _open(self) -> bool:
        """_open opens the stream (again); False once the stream was closed."""
        reopening = self._failures > 0 or self._parser.last_id != ""
        while True:
            extra = {"Last-Event-ID": self._parser.last_id} if self._parser.last_id else None
            try:
                conn, resp, sock = self._client._open("GET", "/v1/chains/%s/events" % _core.quote(self._chain_id),
                                                accept="text/event-stream", extra=extra,
                                                timeout=self._client.stream_timeout)
            except AirlockError as e:
                if not self._reconnect or e.reason != NETWORK_ERROR:
                    raise
                self._failures += 1
                if self._failures > self.max_failures:
                    raise
                time.sleep(0.25 * 2 ** min(self._failures - 1, 3))
                if self._closed:
                    return False
                continue
            if resp.status != 200:
                raise _core.error_of(resp.status, self._client._read(conn, resp))
            ct = resp.getheader("Content-Type", "")
            if not ct.startswith("text/event-stream"):
                conn.close()
                raise AirlockError(UNEXPECTED_RESPONSE, "the event stream is %r, not text/event-stream" % ct, resp.status)
            with self._lock:
                if self._closed:
                    conn.close()
                    return False
                self._conn, self._resp, self._sock = conn, resp, sock
            break
        # A fresh parse state: a line cut by the break is dropped whole.
        self._parser = SSEParser(self._client.max_response_bytes, self._parser.last_id)
        if reopening and self.on_reconnect is not None:
            self.on_reconnect()
        return True

    def _release(self) -> None:
        with self._lock:
            conn, resp, self._conn, self._resp, self._sock = self._conn, self._resp, None, None, None
        if resp is not None:
            resp.close()
        if conn is not None:
            conn.close()

    def _drop(self) -> None:
        self._release()
        self._failures += 1
        if self._failures > self.max_failures:
            raise AirlockError(NETWORK_ERROR, "the stream of chain %s broke %d times in a row"
                               % (self._chain_id, self._failures))
        if self._failures > 1:
            time.sleep(0.25 * 2 ** min(self._failures - 2, 3))

    def close(self) -> None:
        """close ends the stream; a thread blocked reading it returns."""
        with self._lock:
            self._closed = True
            sock, reading = self._sock, self._reading
        if not reading:
            self._release()
        elif sock is not None:
            # The reading thread wakes up, sees closed and releases the
            # connection itself.
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
