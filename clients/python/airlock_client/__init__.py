"""airlock_client: a Python client of airlock's HTTP API (``airlock serve``).

Standard library only. ``Airlock`` is synchronous (threads run caller tools),
``AsyncAirlock`` is for asyncio (tasks run them; cancelling a task cancels
its requests). Both have the same methods::

    from airlock_client import Airlock, tool

    @tool(input_schema={"type": "object", "properties": {"email": {"type": "string"}}})
    def lookup_customer(args):
        "Find a customer by email."
        return {"id": 7, "email": args["email"]}

    client = Airlock("http://127.0.0.1:8080", api_key="...")
    chain = client.run("return await tools.lookup_customer({email: 'a@example.com'})",
                       tools=[lookup_customer])
    print(chain.value)  # a chain that ends other than ok raises ChainError

``code_mode_tool`` turns a client and caller tools into one tool for a
model (OpenAI, Anthropic or generic shape) whose description carries the
TypeScript declarations and whose executor runs the model's script.

Every refusal and failure raises ``AirlockError`` with ``reason`` (the
server's reason code, or UNEXPECTED_RESPONSE, NETWORK_ERROR, CLIENT_TIMEOUT,
CLIENT_CANCELLED, WAIT_TIMEOUT) and ``status`` (HTTP status, None for the
client's own); ``run`` and ``resume`` raise ``ChainError`` for a chain that
ended other than ok. docs/clients.md
has the whole guide; docs/http-api.md the API.
"""

from ._aio import AsyncAirlock, AsyncEventStream
from ._core import VERSION as __version__
from ._core import current_call
from ._sync import Airlock, EventStream
from .codemode import async_code_mode_tool, chain_summary, code_mode_tool
from .errors import (CLIENT_CANCELLED, CLIENT_TIMEOUT, NETWORK_ERROR, UNEXPECTED_RESPONSE, WAIT_TIMEOUT, AirlockError,
                     ChainError)
from .models import (ApprovalRequest, Artifact, CallAnswer, Chain, ChainSummary, CredentialRequest, Decision, Event,
                     Identity, LogLine, MediaFile, Pending, PendingCall, RunResult, Tool, TraceRecord, tool)

__all__ = [
    "Airlock", "AsyncAirlock", "EventStream", "AsyncEventStream", "AirlockError", "ChainError", "UNEXPECTED_RESPONSE",
    "CLIENT_CANCELLED", "CLIENT_TIMEOUT", "NETWORK_ERROR", "WAIT_TIMEOUT", "ApprovalRequest", "Artifact", "CallAnswer", "Chain", "ChainSummary",
    "CredentialRequest", "Decision", "Identity", "Event", "LogLine", "MediaFile", "Pending", "PendingCall", "RunResult", "Tool", "TraceRecord", "tool",
    "code_mode_tool", "async_code_mode_tool", "chain_summary", "current_call", "__version__",
]
