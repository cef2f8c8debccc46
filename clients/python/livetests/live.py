"""What the live tests share: the servers and keys internal/servetest
started (AIRLOCK_TEST_* variables, set by clients/python/client_test.go),
and the two clients the tests run with."""

from __future__ import annotations

import asyncio
import os
import time
import unittest
from typing import Any, Callable, List, Optional

from airlock_client import Airlock, AirlockError, AsyncAirlock, Tool

# The variables are required: these tests run only from client_test.go,
# which sets them. A missing one fails, never skips.
try:
    URLS: List[str] = os.environ["AIRLOCK_TEST_URLS"].split(",")
    KEY = os.environ["AIRLOCK_TEST_KEY"]
    SUBMIT_KEY = os.environ["AIRLOCK_TEST_SUBMIT_KEY"]
    APPROVER_KEY = os.environ["AIRLOCK_TEST_APPROVER_KEY"]
    OTHER_KEY = os.environ["AIRLOCK_TEST_OTHER_KEY"]
    MODE = os.environ["AIRLOCK_TEST_APPROVAL_MODE"]
except KeyError as e:
    raise SystemExit("livetests: %s is not set; run them through go test ./clients/python" % e)


class AsyncFacade:
    """AsyncFacade calls an AsyncAirlock as if it were an Airlock, each
    coroutine in a fresh event loop (as the unit tests' facade)."""

    def __init__(self, client: AsyncAirlock) -> None:
        self.client = client

    def __getattr__(self, name: str) -> Any:
        fn = getattr(self.client, name)
        if not asyncio.iscoroutinefunction(fn):
            return fn

        def call(*a: Any, **k: Any) -> Any:
            return asyncio.run(fn(*a, **k))
        return call


class LiveBase(unittest.TestCase):
    """LiveBase is run twice: with Airlock and with AsyncAirlock."""

    kind = "sync"

    def client(self, key: Optional[str] = KEY, url: Optional[str] = None) -> Any:
        url = url or URLS[0]
        if self.kind == "sync":
            return Airlock(url, key)
        return AsyncFacade(AsyncAirlock(url, key))

    def refused(self, fn: Callable[..., Any], *a: Any, **k: Any) -> AirlockError:
        with self.assertRaises(AirlockError) as cm:
            fn(*a, **k)
        return cm.exception

    def pending_calls(self, c: Any, chain_id: str, n: int = 1, within: float = 20.0) -> list:
        """pending_calls polls the chain's pending calls until there are n."""
        end = time.monotonic() + within
        while True:
            calls = c.calls(chain_id)
            if len(calls) >= n:
                return calls
            if time.monotonic() > end:
                self.fail("chain %s: %d pending calls after %gs, want %d" % (chain_id, len(calls), within, n))
            time.sleep(0.05)


def tool(name: str, fn: Callable[[Any], Any], **kw: Any) -> Tool:
    kw.setdefault("description", "The live tests' %s." % name)
    return Tool(name, fn, **kw)
