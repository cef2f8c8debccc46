"""code_mode_tool: one tool for a model that runs the script it writes.

Code mode gives a model one tool instead of many: the model writes a short
script that calls the tools as functions, and airlock runs it. The tool's
description carries the TypeScript declarations of what the script may call
(the server's selected tools and the caller tools), so the model writes
against exact signatures.
"""

from __future__ import annotations

import json
from typing import Any, Awaitable, Callable, Dict, List, Mapping, Optional, Sequence, Union

from ._aio import AsyncAirlock, AsyncApprovalHandler
from ._sync import Airlock, ApprovalHandler
from .errors import AirlockError, ChainError
from .models import Chain, Tool

FORMATS = ("generic", "openai", "anthropic")

_SCRIPT = ("The chain: the body of an async JavaScript function. Call tools as `await tools.NAME(args)`, "
           "several at once with `Promise.all`, and `return` the result as JSON.")

INPUT_SCHEMA: Dict[str, Any] = {
    "type": "object",
    "properties": {"script": {"type": "string", "description": _SCRIPT}},
    "required": ["script"],
    "additionalProperties": False,
}


class CodeModeTool(dict):  # type: ignore[type-arg]
    """CodeModeTool is the tool definition as a plain dict in the shape its
    format asks for (json.dumps it, or hand it to the model's SDK), with
    the executor as the attribute ``execute``: it takes the model's tool
    arguments (a mapping, or the JSON text of one, as OpenAI sends them)
    and returns ``chain_summary`` of the chain it ran; ``call`` returns the
    same as JSON text, the content of the tool's answer to the model.
    (Both are coroutine functions for the asyncio client.)
    ``declarations`` is the TypeScript the description carries."""

    execute: Callable[[Union[str, Mapping[str, Any]]], Any]
    declarations: str

    def call(self, args: Union[str, Mapping[str, Any]]) -> Union[str, Awaitable[str]]:
        """call is json.dumps(execute(args)), awaitable for the asyncio client."""
        out = self.execute(args)
        if isinstance(out, dict):
            return json.dumps(out)

        async def text() -> str:
            return json.dumps(await out)
        return text()


def describe(declarations: str) -> str:
    """describe is the tool's description around the declarations."""
    return ("Run a JavaScript chain in the airlock sandbox and return what it returns. "
            "Inside the chain, tools are async functions of the `tools` object; a tool call that fails throws "
            "an error whose `reason` says why. Only these tools exist:\n\n```ts\n%s\n```" % declarations.strip())


def _logs(chain: Chain) -> List[Dict[str, str]]:
    return [{"level": e.level, "text": e.text} for e in chain.result.logs] if chain.result is not None else []


def chain_summary(chain: Chain) -> Dict[str, Any]:
    """chain_summary is what a model is shown of a chain that ended:
    ``{"ok": true, "value", "logs"}`` when it ended ok, otherwise
    ``{"ok": false, "reason", "error", "logs"}`` with ``line`` and
    ``column`` when the script's error has a place. ``logs`` are
    ``{"level", "text"}`` objects."""
    r = chain.result
    if chain.status == "ok":
        return {"ok": True, "value": r.value if r is not None else None, "logs": _logs(chain)}
    out: Dict[str, Any] = {"ok": False, "reason": (r.reason if r is not None else "") or chain.status,
                           "error": (r.error if r is not None else "") or "the chain ended " + chain.status}
    if r is not None and r.line:
        out["line"], out["column"] = r.line, r.column
    out["logs"] = _logs(chain)
    return out


def error_summary(e: AirlockError) -> Dict[str, Any]:
    """error_summary is what a model is shown when the chain was refused
    (invalid_script, with line and column, and every other reason)."""
    out: Dict[str, Any] = {"ok": False, "reason": e.reason, "error": e.message}
    if e.line:
        out["line"], out["column"] = e.line, e.column or 0
    out["logs"] = []
    return out


def _script(args: Union[str, Mapping[str, Any]]) -> str:
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError as e:
            raise ValueError("code mode: the tool arguments are not JSON: %s" % e) from None
    if not isinstance(args, Mapping) or not isinstance(args.get("script"), str):
        raise ValueError("code mode: the tool arguments need a string 'script'")
    return args["script"]


def _shape(fmt: str, name: str, description: str) -> CodeModeTool:
    if fmt == "openai":
        return CodeModeTool(type="function", function={"name": name, "description": description,
                                                        "parameters": INPUT_SCHEMA})
    if fmt == "anthropic":
        return CodeModeTool(name=name, description=description, input_schema=INPUT_SCHEMA)
    if fmt == "generic":
        return CodeModeTool(name=name, description=description, input_schema=INPUT_SCHEMA)
    raise ValueError("code mode: format %r is not one of %s" % (fmt, ", ".join(FORMATS)))


def code_mode_tool(client: Airlock, tools: Sequence[Tool] = (), format: str = "generic", *,
                   name: str = "run_chain", server_tools: Optional[Sequence[str]] = None,
                   on_approval: Optional[ApprovalHandler] = None, timeout: Optional[float] = None,
                   policy: Optional[Mapping[str, Any]] = None,
                   limits: Optional[Mapping[str, Any]] = None) -> CodeModeTool:
    """code_mode_tool is a tool for a model that runs the model's script
    with ``tools`` (caller tools) and ``server_tools`` (a selection of the
    server's, default all) through ``client.run``.

    ``format`` is "openai" (``{"type": "function", "function": {name,
    description, parameters}}``), "anthropic" (``{name, description,
    input_schema}``) or "generic" (``{name, description, input_schema,
    execute}``). It reads the declarations from the server once, now.
    ``execute(args)`` returns what the model is shown and raises nothing
    the model caused: a chain that failed is ``chain_summary``'s ok false, a
    refusal ``error_summary`` (ok false and the reason: invalid_script with
    line and column, ...), arguments without a string ``script`` reason
    invalid_request. ``on_approval``, ``timeout``,
    ``policy`` and ``limits`` go to every run.
    """
    decl = client.declarations(tools=tools, server_tools=server_tools)
    t = _shape(format, name, describe(decl))

    def execute(args: Union[str, Mapping[str, Any]]) -> Dict[str, Any]:
        try:
            script = _script(args)
        except ValueError as e:
            return {"ok": False, "reason": "invalid_request", "error": str(e), "logs": []}
        try:
            ch = client.run(script, tools=tools, server_tools=server_tools, on_approval=on_approval,
                            timeout=timeout, policy=policy, limits=limits)
        except ChainError as e:
            return chain_summary(e.chain)
        except AirlockError as e:
            return error_summary(e)
        return chain_summary(ch)

    t.execute, t.declarations = execute, decl
    if format == "generic":
        t["execute"] = execute
    return t


async def async_code_mode_tool(client: AsyncAirlock, tools: Sequence[Tool] = (), format: str = "generic", *,
                               name: str = "run_chain", server_tools: Optional[Sequence[str]] = None,
                               on_approval: Optional[AsyncApprovalHandler] = None,
                               timeout: Optional[float] = None, policy: Optional[Mapping[str, Any]] = None,
                               limits: Optional[Mapping[str, Any]] = None) -> CodeModeTool:
    """async_code_mode_tool is code_mode_tool for AsyncAirlock: its
    ``execute`` is a coroutine function."""
    decl = await client.declarations(tools=tools, server_tools=server_tools)
    t = _shape(format, name, describe(decl))

    async def execute(args: Union[str, Mapping[str, Any]]) -> Dict[str, Any]:
        try:
            script = _script(args)
        except ValueError as e:
            return {"ok": False, "reason": "invalid_request", "error": str(e), "logs": []}
        try:
            ch = await client.run(script, tools=tools, server_tools=server_tools, on_approval=on_approval,
                                  timeout=timeout, policy=policy, limits=limits)
        except ChainError as e:
            return chain_summary(e.chain)
        except AirlockError as e:
            return error_summary(e)
        return chain_summary(ch)

    t.execute, t.declarations = execute, decl
    if format == "generic":
        t["execute"] = execute
    return t


__all__ = ["code_mode_tool", "async_code_mode_tool", "chain_summary", "error_summary", "describe", "CodeModeTool",
           "INPUT_SCHEMA", "FORMATS"]
