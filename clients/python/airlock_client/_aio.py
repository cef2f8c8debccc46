"""The asyncio client: HTTP/1.1 over asyncio streams, tasks for caller tools."""

from __future__ import annotations

import asyncio
import inspect
import ssl
from typing import (IO, Any, AsyncIterator, Awaitable, Callable, Dict, List, Mapping, Optional, Sequence, Set, Tuple,
                    Union)

from . import _core
from .errors import CLIENT_TIMEOUT, NETWORK_ERROR, UNEXPECTED_RESPONSE, WAIT_TIMEOUT, AirlockError
from .models import (ApprovalRequest, CallAnswer, Chain, ChainSummary, CredentialRequest, Decision, Event, Identity,
                     PendingCall, Tool)
from .sse import SSEParser

#: AsyncApprovalHandler decides an approval request as ApprovalHandler does;
#: it may be a coroutine function (a plain function runs in a thread).
AsyncApprovalHandler = Callable[[ApprovalRequest], Union[bool, str, None, Awaitable[Union[bool, str, None]]]]
#: AsyncCredentialHandler returns a fresh identity as CredentialHandler
#: does; it may be a coroutine function (a plain function runs in a thread).
AsyncCredentialHandler = Callable[[CredentialRequest], Union[Optional[_core.IdentityLike],
                                                             Awaitable[Optional[_core.IdentityLike]]]]

_MAX_HEADER_LINES = 100
_MAX_HEADER_LINE = 64 << 10
_NET_ERRORS = (OSError, EOFError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError)


class _Response:
    """_Response is an answer being read from its own connection."""

    def __init__(self, status: int, headers: Dict[str, str], reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter) -> None:
        self.status = status
        self.headers = headers
        self._reader = reader
        self._writer = writer
        self._chunked = "chunked" in headers.get("transfer-encoding", "").lower()
        cl = headers.get("content-length")
        self._left: Optional[int] = int(cl) if cl is not None and cl.isdigit() and not self._chunked else None
        self._chunk_left = 0
        self._eof = False

    async def chunk(self) -> bytes:
        """chunk returns the next bytes of the body, b"" at its end."""
        if self._eof:
            return b""
        if self._chunked:
            if self._chunk_left == 0:
                line = await self._reader.readline()
                if not line.endswith(b"\n"):
                    raise EOFError("the connection closed inside a chunked body")
                size = line.split(b";")[0].strip()
                try:
                    self._chunk_left = int(size, 16)
                except ValueError:
                    raise EOFError("bad chunk size %r" % size[:32]) from None
                if self._chunk_left == 0:
                    self._eof = True
                    return b""
            data = await self._reader.read(min(self._chunk_left, 1 << 16))
            if not data:
                raise EOFError("the connection closed inside a chunk")
            self._chunk_left -= len(data)
            if self._chunk_left == 0:
                await self._reader.readexactly(2)
            return data
        if self._left is not None:
            if self._left == 0:
                self._eof = True
                return b""
            data = await self._reader.read(min(self._left, 1 << 16))
            if not data:
                raise EOFError("the connection closed %d bytes before the end of the body" % self._left)
            self._left -= len(data)
            return data
        data = await self._reader.read(1 << 16)
        if not data:
            self._eof = True
        return data

    async def read(self, limit: int) -> bytes:
        buf = bytearray()
        while True:
            data = await self.chunk()
            if not data:
                return bytes(buf)
            buf += data
            if len(buf) > limit:
                raise AirlockError(UNEXPECTED_RESPONSE, "the answer is larger than %d bytes" % limit, self.status)

    def close(self) -> None:
        self._writer.close()


class AsyncAirlock:
    """AsyncAirlock is Airlock for asyncio: the same methods, as coroutines.

    Each request opens its own connection (asyncio streams), so a client is
    shared freely by tasks of one event loop. Cancelling the task that
    awaits a method cancels its request; cancelling ``run`` cancels the
    chain too. Caller-tool handlers and ``on_approval`` may be coroutine
    functions (run as tasks, several at once) or plain functions (run in
    threads with asyncio.to_thread). ``timeout``, ``stream_timeout``,
    ``ssl_context`` and ``max_response_bytes`` are Airlock's.
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
        #: run or wait follows it.
        self.poll_interval = 1.0

    # -- transport --------------------------------------------------------

    async def _exchange(self, method: str, path: str, body: Any, accept: str,
                        extra: Optional[Mapping[str, str]]) -> _Response:
        e = self.endpoint
        data = _core.encode(body) if body is not None else None
        h = _core.headers(self.api_key, accept, data is not None, extra)
        ctx = None
        if e.scheme == "https":
            ctx = self.ssl_context or ssl.create_default_context()
        reader, writer = await asyncio.open_connection(e.host, e.port, ssl=ctx, limit=_MAX_HEADER_LINE)
        try:
            head = ["%s %s HTTP/1.1" % (method, e.prefix + path), "Host: " + e.host_header, "Connection: close"]
            if data is not None:
                head.append("Content-Length: %d" % len(data))
            head += ["%s: %s" % kv for kv in h.items()]
            writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + (data or b""))
            await writer.drain()
            line = await reader.readline()
            parts = line.decode("latin-1").split(" ", 2)
            if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
                raise AirlockError(UNEXPECTED_RESPONSE, "not an HTTP/1.x answer: %.100r" % line)
            hdrs: Dict[str, str] = {}
            for _ in range(_MAX_HEADER_LINES):
                line = await reader.readline()
                if line in (b"\r\n", b"\n"):
                    return _Response(int(parts[1]), hdrs, reader, writer)
                if not line.endswith(b"\n"):
                    raise EOFError("the connection closed inside the answer's header")
                k, _, v = line.decode("latin-1").partition(":")
                hdrs[k.strip().lower()] = v.strip()
            raise AirlockError(UNEXPECTED_RESPONSE, "the answer has more than %d header lines" % _MAX_HEADER_LINES)
        except BaseException:
            writer.close()
            raise

    async def _open(self, method: str, path: str, body: Any = None, *, accept: str = "application/json",
                    extra: Optional[Mapping[str, str]] = None, timeout: Optional[float] = None) -> _Response:
        limit = timeout if timeout is not None else self.timeout
        try:
            return await asyncio.wait_for(self._exchange(method, path, body, accept, extra), limit)
        except asyncio.TimeoutError:
            raise AirlockError(NETWORK_ERROR, "%s %s: no answer within %gs" % (method, path, limit)) from None
        except _NET_ERRORS as e:
            raise AirlockError(NETWORK_ERROR, "%s %s: %s" % (method, path, e)) from None

    async def _read(self, resp: _Response) -> bytes:
        try:
            return await asyncio.wait_for(resp.read(self.max_response_bytes), self.timeout)
        except asyncio.TimeoutError:
            raise AirlockError(NETWORK_ERROR, "the answer did not arrive within %gs" % self.timeout) from None
        except _NET_ERRORS as e:
            raise AirlockError(NETWORK_ERROR, "reading the answer: %s" % e) from None
        finally:
            resp.close()

    async def _json(self, method: str, path: str, body: Any = None, want: Sequence[int] = (200,),
                    timeout: Optional[float] = None) -> Any:
        resp = await self._open(method, path, body, timeout=timeout)
        data = await self._read(resp)
        return _core.decode(resp.status, resp.headers.get("content-type", ""), data, want)

    # -- chains -----------------------------------------------------------

    async def submit(self, script: str, *, tools: Optional[Sequence[_core.ToolSpec]] = None,
                     language: Optional[str] = None, server_tools: Optional[Sequence[str]] = None,
                     policy: Optional[Mapping[str, Any]] = None, limits: Optional[Mapping[str, Any]] = None,
                     guest: Optional[Mapping[str, Any]] = None, input: Any = None,
                     tenant: Optional[str] = None, identity: Optional[_core.IdentityLike] = None) -> Chain:
        """submit is Airlock.submit."""
        ident = _core.identity_of(identity)
        body = _core.submit_body(script, language=language, tools=tools, server_tools=server_tools, policy=policy,
                                 limits=limits, guest=guest, input=input, tenant=tenant, identity=ident)
        try:
            return Chain.from_json(await self._json("POST", "/v1/chains?async=1", body, want=(202,)))
        except AirlockError as e:
            raise _core.scrubbed(e, ident) from None

    async def set_identity(self, chain_id: str, identity: _core.IdentityLike) -> None:
        """set_identity is Airlock.set_identity."""
        ident = Identity.of(identity)
        try:
            resp = await self._open("POST", "/v1/chains/%s/identity" % _core.quote(chain_id), ident.to_json())
            _core.check_no_content(resp.status, await self._read(resp))
        except AirlockError as e:
            raise _core.scrubbed(e, ident) from None

    async def chain(self, chain_id: str) -> Chain:
        """chain is Airlock.chain."""
        return Chain.from_json(await self._json("GET", "/v1/chains/" + _core.quote(chain_id)))

    async def chains(self, status: Optional[str] = None) -> List[ChainSummary]:
        """chains is Airlock.chains."""
        q = "?status=" + _core.quote(status) if status else ""
        doc = await self._json("GET", "/v1/chains" + q)
        return [ChainSummary.from_json(c) for c in _core.field(doc, "chains")]

    async def cancel(self, chain_id: str) -> Chain:
        """cancel is Airlock.cancel."""
        return Chain.from_json(await self._json("DELETE", "/v1/chains/" + _core.quote(chain_id), want=(200, 202)))

    def events(self, chain_id: str, *, last_event_id: Optional[str] = None,
               reconnect: bool = True) -> "AsyncEventStream":
        """events is Airlock.events: an async iterator of Event (``async
        for``); aclose() ends it, and so does leaving ``async with``."""
        return AsyncEventStream(self, chain_id, last_event_id or "", reconnect)

    # -- approvals --------------------------------------------------------

    async def approvals(self) -> List[ApprovalRequest]:
        """approvals is Airlock.approvals."""
        doc = await self._json("GET", "/v1/approvals")
        return [ApprovalRequest.from_json(a) for a in _core.field(doc, "approvals")]

    async def approval(self, request_id: str) -> ApprovalRequest:
        """approval is Airlock.approval."""
        return ApprovalRequest.from_json(await self._json("GET", "/v1/approvals/" + _core.quote(request_id)))

    async def decide(self, request: Union[ApprovalRequest, str], decision: Union[bool, str],
                     args_hash: Optional[str] = None) -> Decision:
        """decide is Airlock.decide."""
        rid, h = _target(request, args_hash)
        body = {"decision": _core.decision_word(decision), "args_hash": h}
        return Decision.from_json(await self._json("POST", "/v1/approvals/" + _core.quote(rid), body))

    # -- caller tools -----------------------------------------------------

    async def calls(self, chain_id: Optional[str] = None) -> List[PendingCall]:
        """calls is Airlock.calls."""
        path = "/v1/chains/%s/calls" % _core.quote(chain_id) if chain_id else "/v1/calls"
        return [PendingCall.from_json(c) for c in _core.field(await self._json("GET", path), "calls")]

    async def call(self, call_id: str) -> PendingCall:
        """call is Airlock.call."""
        return PendingCall.from_json(await self._json("GET", "/v1/calls/" + _core.quote(call_id)))

    async def answer(self, call: Union[PendingCall, str], result: Any = _core._NO_RESULT, *,
                     error: Optional[str] = None, args_hash: Optional[str] = None) -> CallAnswer:
        """answer is Airlock.answer."""
        cid, h = _target(call, args_hash)
        body = _core.answer_body(h, result, error)
        return CallAnswer.from_json(await self._json("POST", "/v1/calls/" + _core.quote(cid), body))

    # -- tools, artifacts -------------------------------------------------

    async def declarations(self, *, tools: Optional[Sequence[_core.ToolSpec]] = None,
                           server_tools: Optional[Sequence[str]] = None) -> str:
        """declarations is Airlock.declarations."""
        body: Dict[str, Any] = {}
        if server_tools is not None:
            body["tools"] = list(server_tools)
        decl = _core.declarations(tools)
        if decl:
            body["caller_tools"] = decl
        resp = await self._open("POST", "/v1/tools.d.ts", body, accept="text/plain, application/typescript")
        return _core.check_text(resp.status, await self._read(resp))

    async def artifact(self, ref: str, dest: Optional[IO[bytes]] = None) -> Union[bytes, int]:
        """artifact is Airlock.artifact (``dest`` is written from the loop)."""
        resp = await self._open("GET", "/v1/artifacts/" + _core.quote(ref), accept="*/*")
        if resp.status != 200 or dest is None:
            data = await self._read(resp)
            if resp.status != 200:
                raise _core.error_of(resp.status, data)
            return data
        n = 0
        try:
            while True:
                chunk = await asyncio.wait_for(resp.chunk(), self.stream_timeout)
                if not chunk:
                    return n
                dest.write(chunk)
                n += len(chunk)
        except asyncio.TimeoutError:
            raise AirlockError(NETWORK_ERROR, "downloading %s: the server went silent" % ref) from None
        except _NET_ERRORS as e:
            raise AirlockError(NETWORK_ERROR, "downloading %s: %s" % (ref, e)) from None
        finally:
            resp.close()

    # -- following --------------------------------------------------------

    async def run(self, script: str, *, tools: Optional[Sequence[Tool]] = None,
                  on_approval: Optional[AsyncApprovalHandler] = None, approver: Optional["AsyncAirlock"] = None,
                  on_event: Optional[Callable[[Event], Any]] = None,
                  on_submitted: Optional[Callable[[Chain], Any]] = None, timeout: Optional[float] = None,
                  language: Optional[str] = None, server_tools: Optional[Sequence[str]] = None,
                  policy: Optional[Mapping[str, Any]] = None, limits: Optional[Mapping[str, Any]] = None,
                  guest: Optional[Mapping[str, Any]] = None, identity: Optional[_core.IdentityLike] = None,
                  on_credential_required: Optional[AsyncCredentialHandler] = None) -> Chain:
        """run is Airlock.run. Cancel the task to stop it (the chain is
        cancelled and CancelledError goes on); ``timeout`` raises
        CLIENT_TIMEOUT after cancelling the chain. ``on_event``,
        ``on_submitted``, ``on_approval`` and ``on_credential_required``
        may be coroutine functions."""
        tmap = _core.tool_map(tools)
        ch = await self.submit(script, tools=tools, language=language, server_tools=server_tools, policy=policy,
                               limits=limits, guest=guest, identity=identity)
        try:
            if on_submitted is not None:
                r = on_submitted(ch)
                if inspect.isawaitable(r):
                    await r
            final = await self._bounded(self._follow(ch.id, tmap, on_approval, approver, on_event, attached=False,
                                                     on_credential=on_credential_required), ch.id, timeout)
        except BaseException:
            stop = asyncio.ensure_future(self._cancel_quietly(ch.id))
            try:
                await asyncio.shield(stop)
            except BaseException:
                pass
            raise
        return _core.ended_ok(final)

    async def resume(self, chain_id: str, *, tools: Optional[Sequence[Tool]] = None,
                     on_approval: Optional[AsyncApprovalHandler] = None, approver: Optional["AsyncAirlock"] = None,
                     on_event: Optional[Callable[[Event], Any]] = None, timeout: Optional[float] = None,
                     on_credential_required: Optional[AsyncCredentialHandler] = None) -> Chain:
        """resume is Airlock.resume; cancelling it or its ``timeout``
        leaves the chain be."""
        return _core.ended_ok(await self._bounded(
            self._follow(chain_id, _core.tool_map(tools), on_approval, approver, on_event, attached=True,
                         on_credential=on_credential_required),
            chain_id, timeout))

    async def wait(self, chain_id: str, *, on_event: Optional[Callable[[Event], Any]] = None,
                   timeout: Optional[float] = None) -> Chain:
        """wait is Airlock.wait."""
        return await self._bounded(self._follow(chain_id, {}, None, None, on_event, attached=True), chain_id,
                                   timeout)

    async def wait_parked(self, chain_id: str, *, timeout: float = 30.0, interval: float = 0.1) -> Chain:
        """wait_parked is Airlock.wait_parked."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            ch = await self.chain(chain_id)
            if (ch.status == "parked" and ch.pending) or ch.done:
                return ch
            if loop.time() > deadline:
                raise AirlockError(WAIT_TIMEOUT, "chain %s is %s, not parked, after %gs" % (chain_id, ch.status,
                                                                                          timeout))
            await asyncio.sleep(interval)

    async def _cancel_quietly(self, chain_id: str) -> None:
        try:
            await self._json("DELETE", "/v1/chains/" + _core.quote(chain_id), want=(200, 202), timeout=10)
        except AirlockError:
            pass

    @staticmethod
    async def _bounded(aw: Awaitable[Chain], chain_id: str, timeout: Optional[float]) -> Chain:
        if timeout is None:
            return await aw
        try:
            return await asyncio.wait_for(aw, timeout)
        except asyncio.TimeoutError:
            raise AirlockError(CLIENT_TIMEOUT, "chain %s did not end within %gs" % (chain_id, timeout)) from None

    async def _follow(self, chain_id: str, tools: Dict[str, Tool], on_approval: Optional[AsyncApprovalHandler],
                      approver: Optional["AsyncAirlock"], on_event: Optional[Callable[[Event], Any]],
                      attached: bool, on_credential: Optional[AsyncCredentialHandler] = None) -> Chain:
        fol = _core.Follow(chain_id, tools, on_approval is not None, attached, credentials=on_credential is not None)
        inbox: "asyncio.Queue[Tuple[str, Any]]" = asyncio.Queue()
        tasks: Set["asyncio.Task[None]"] = set()

        def spawn(aw: Awaitable[None]) -> None:
            async def guard() -> None:
                try:
                    await aw
                except asyncio.CancelledError:
                    raise
                except BaseException as e:
                    inbox.put_nowait(("error", e))

            t = asyncio.ensure_future(guard())
            tasks.add(t)
            t.add_done_callback(tasks.discard)

        stream = AsyncEventStream(self, chain_id, "", True)

        async def sweep() -> None:
            if fol.tools:
                try:
                    inbox.put_nowait(("calls", await _retried(self.calls, chain_id)))
                except AirlockError:
                    pass  # a call it would have found still comes as an event or a parked entry

        stream.on_reconnect = lambda: spawn(sweep())

        async def read() -> None:
            try:
                async for ev in stream:
                    inbox.put_nowait(("event", ev))
            except AirlockError as e:
                inbox.put_nowait(("lost", e))
                return
            inbox.put_nowait(("end", None))

        async def poll() -> None:
            try:
                inbox.put_nowait(("chain", await self.chain(chain_id)))
            except AirlockError:
                pass  # the stream or the next poll tells

        spawn(read())
        loop = asyncio.get_running_loop()
        next_poll = 0.0
        try:
            while True:
                if fol.parked and loop.time() >= next_poll:
                    next_poll = loop.time() + self.poll_interval
                    spawn(poll())
                try:
                    kind, v = await asyncio.wait_for(inbox.get(), self.poll_interval if fol.parked else None)
                except asyncio.TimeoutError:
                    continue
                if kind == "event":
                    if on_event is not None:
                        r = on_event(v)
                        if inspect.isawaitable(r):
                            await r
                    serves, final = fol.event(v)
                    if final is not None:
                        return final
                    for s in serves:
                        spawn(self._serve(fol, s, on_approval, approver or self, on_credential))
                elif kind in ("chain", "calls"):
                    if kind == "chain" and v.done:
                        return v
                    for s in fol.view(v) if kind == "chain" else fol.calls(v):
                        spawn(self._serve(fol, s, on_approval, approver or self, on_credential))
                elif kind == "error":
                    raise v
                elif kind in ("end", "lost"):
                    # As in Airlock._follow: the chain may have ended.
                    if kind == "lost" and v.reason != NETWORK_ERROR:
                        raise v
                    ch = await self.chain(chain_id)
                    if ch.done:
                        return ch
                    if v is not None:
                        raise v
                    raise AirlockError(UNEXPECTED_RESPONSE, "the stream of chain %s ended before done" % chain_id)
        finally:
            for t in list(tasks):
                t.cancel()
            await stream.aclose()

    async def _serve(self, fol: _core.Follow, s: _core.Serve, on_approval: Optional[AsyncApprovalHandler],
                     approver: "AsyncAirlock", on_credential: Optional[AsyncCredentialHandler] = None) -> None:
        if s.kind == "credential":
            assert on_credential is not None and isinstance(s.item, CredentialRequest)
            fresh = await _call(on_credential, s.item)
            if fresh is None:
                return
            try:
                await _retried(self.set_identity, fol.chain_id, fresh)
            except AirlockError as e:
                if not _core.identity_settled(e, s.item):
                    raise
            return
        if s.kind == "approval":
            assert on_approval is not None
            try:
                req = s.item if isinstance(s.item, ApprovalRequest) else await _retried(self.approval, s.id)
                d = await _call(on_approval, req)
                if d is not None:
                    await _retried(approver.decide, req, d)
            except AirlockError as e:
                if e.reason not in _core.APPROVAL_SETTLED:
                    raise
            return
        try:
            call = (s.item if isinstance(s.item, PendingCall) and not s.verify
                    else await _retried(self.call, s.id))
        except AirlockError as e:
            if e.reason in _core.CALL_SETTLED:
                return
            raise
        tool = fol.tools[call.tool]
        _core.CALL.set(call)  # this task's own context
        try:
            body = _core.result_answer(call.args_hash, await _call(tool.handler, call.args))
        except asyncio.CancelledError:
            raise
        except Exception as e:
            body = _core.answer_body(call.args_hash, error=_core.handler_error(e))
        path = "/v1/calls/" + _core.quote(call.id)
        try:
            try:
                await _retried(self._json, "POST", path, body)
            except AirlockError as e:
                if e.reason not in _core.RESULT_REFUSED:
                    raise
                await _retried(self._json, "POST", path, _core.answer_body(call.args_hash, error=_core.refused_text(e)))
        except AirlockError as e:
            if e.reason not in _core.CALL_SETTLED:
                raise


async def _retried(fn: Callable[..., Awaitable[Any]], *args: Any) -> Any:
    """_retried awaits fn(*args), again after each failure in _core.RETRIED."""
    for pause in _core.RETRY_DELAYS + (None,):
        try:
            return await fn(*args)
        except AirlockError as e:
            if pause is None or e.reason not in _core.RETRIED:
                raise
            await asyncio.sleep(pause)


async def _call(fn: Callable[..., Any], arg: Any) -> Any:
    """_call runs fn(arg): a coroutine function on the loop, a plain one in a
    thread; an awaitable it returns is awaited."""
    if inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None)):
        r = fn(arg)
    else:
        r = await asyncio.to_thread(fn, arg)
    if inspect.isawaitable(r):
        r = await r
    return r


def _target(item: Union[ApprovalRequest, PendingCall, str], args_hash: Optional[str]) -> Tuple[str, str]:
    if isinstance(item, (ApprovalRequest, PendingCall)):
        return item.id, args_hash or item.args_hash
    if not args_hash:
        raise ValueError("args_hash is required with an id")
    return item, args_hash


class AsyncEventStream:
    """AsyncEventStream is an async iterator over a chain's events."""

    def __init__(self, client: AsyncAirlock, chain_id: str, last_event_id: str, reconnect: bool) -> None:
        self._client = client
        self._chain_id = chain_id
        self._parser = SSEParser(client.max_response_bytes, last_event_id)
        self._reconnect = reconnect
        self._resp: Optional[_Response] = None
        self._closed = False
        self._done = False
        self._pending: List[Event] = []
        self._failures = 0
        #: on_reconnect is called after the stream was opened again.
        self.on_reconnect: Optional[Callable[[], None]] = None
        #: max_failures is EventStream.max_failures.
        self.max_failures = 5

    @property
    def last_event_id(self) -> str:
        """last_event_id is the id of the last event received."""
        return self._parser.last_id

    def __aiter__(self) -> AsyncIterator[Event]:
        return self

    async def __aenter__(self) -> "AsyncEventStream":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    async def __anext__(self) -> Event:
        while True:
            if self._pending:
                ev = self._pending.pop(0)
                if ev.name == "done":
                    self._done = True
                    self._pending.clear()
                    await self.aclose()
                return ev
            if self._done or self._closed:
                raise StopAsyncIteration
            if self._resp is None:
                await self._open()
                continue
            err: Optional[BaseException] = None
            try:
                chunk = await asyncio.wait_for(self._resp.chunk(), self._client.stream_timeout)
            except asyncio.TimeoutError as e:
                chunk, err = b"", e
            except _NET_ERRORS as e:
                chunk, err = b"", e
            if chunk:
                before = self._parser.last_id
                self._pending.extend(_core.event_of(n, d, i) for n, d, i in self._parser.feed(chunk))
                if self._parser.last_id != before:
                    self._failures = 0  # the stream moved on: a break after this is a new one
                continue
            await self._drop()
            if not self._reconnect:
                raise AirlockError(NETWORK_ERROR, "the stream of chain %s broke: %s"
                                   % (self._chain_id, err or "closed before done"))

    async def _open(self) -> None:
        reopening = self._failures > 0 or self._parser.last_id != ""
        while True:
            extra = {"Last-Event-ID": self._parser.last_id} if self._parser.last_id else None
            try:
                resp = await self._client._open("GET", "/v1/chains/%s/events" % _core.quote(self._chain_id),
                                                accept="text/event-stream", extra=extra)
            except AirlockError as e:
                if not self._reconnect or e.reason != NETWORK_ERROR:
                    raise
                self._failures += 1
                if self._failures > self.max_failures:
                    raise
                await asyncio.sleep(0.25 * 2 ** min(self._failures - 1, 3))
                continue
            if resp.status != 200:
                raise _core.error_of(resp.status, await self._client._read(resp))
            ct = resp.headers.get("content-type", "")
            if not ct.startswith("text/event-stream"):
                resp.close()
                raise AirlockError(UNEXPECTED_RESPONSE, "the event stream is %r, not text/event-stream" % ct, resp.status)
            self._resp = resp
            break
        self._parser = SSEParser(self._client.max_response_bytes, self._parser.last_id)
        if reopening and self.on_reconnect is not None:
            self.on_reconnect()

    async def _drop(self) -> None:
        resp, self._resp = self._resp, None
        if resp is not None:
            resp.close()
        self._failures += 1
        if self._failures > self.max_failures:
            raise AirlockError(NETWORK_ERROR, "the stream of chain %s broke %d times in a row"
                               % (self._chain_id, self._failures))
        if self._failures > 1:
            await asyncio.sleep(0.25 * 2 ** min(self._failures - 2, 3))

    async def aclose(self) -> None:
        """aclose ends the stream."""
        self._closed = True
        resp, self._resp = self._resp, None
        if resp is not None:
            resp.close()
