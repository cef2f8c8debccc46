"""code_mode_tool: one tool for a model that runs the script it writes.

Code mode gives a model one tool instead of many: the model writes a short
script that calls the tools as functions, and airlock runs it. The tool's
description carries the TypeScript declarations of what the script may call
(the server's selected tools and the caller tools), so the model writes
against exact signatures.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Union

from ._aio import AsyncAirlock, AsyncApprovalHandler
from ._sync import Airlock, ApprovalHandler
from .errors import AirlockError
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
    arguments (a mapping, or the JSON text of one) and returns
    ``chain_summary`` of the chain it ran. ``declarations`` is the
    TypeScript the description carries."""

    execute: Callable[[Union[str, Mapping[str, Any]]], Any]
    declarations: str


def describe(declarations: str) -> str:
    """describe is the tool's description around the declarations."""
    return ("Run a JavaScript chain in the airlock sandbox and return what it returns. "
            "Inside the chain, tools are async functions of the `tools` object; a tool call that fails throws "
            "an error whose `reason` says why. Only these tools exist:\n\n```ts\n%s\n```" % declarations.strip())


def chain_summary(chain: Chain) -> Dict[str, Any]:
    """chain_summary is what a model is shown of a chain that ended: status
    and value when ok; otherwise status, reason, error and where (line,
    column); with the console lines and artifact refs when there are any."""
    out: Dict[str, Any] = {"status": chain.status}
    r = chain.result
    if r is None:
        return out
    if chain.status == "ok":
        out["value"] = r.value
    else:
        out["reason"] = r.reason
        if r.error:
            out["error"] = r.error
        if r.line:
            out["line"], out["column"] = r.line, r.column
    if r.logs:
        out["logs"] = ["%s: %s" % (e.level, e.text) for e in r.logs]
    if r.artifacts:
        out["artifacts"] = [{"$artifact": a.ref, "size": a.size, "mime": a.mime} for a in r.artifacts]
    return out


def error_summary(e: AirlockError) -> Dict[str, Any]:
    """error_summary is what a model is shown when the chain was refused
    (invalid_script, with line and column, and every other reason)."""
    out: Dict[str, Any] = {"status": "refused", "reason": e.reason, "error": e.message}
    if e.line:
        out["line"], out["column"] = e.line, e.column or 0
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
    the model caused: a refusal comes back as ``error_summary`` (status
    "refused" and the reason), arguments without a string ``script`` as
    reason "invalid_arguments". ``on_approval``, ``timeout``,
    ``policy`` and ``limits`` go to every run.
    """
    decl = client.declarations(tools=tools, server_tools=server_tools)
    t = _shape(format, name, describe(decl))

    def execute(args: Union[str, Mapping[str, Any]]) -> Dict[str, Any]:
        try:
            script = _script(args)
        except ValueError as e:
            return {"status": "refused", "reason": "invalid_arguments", "error": str(e)}
        try:
            ch = client.run(script, tools=tools, server_tools=server_tools, on_approval=on_approval,
                            timeout=timeout, policy=policy, limits=limits)
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
            return {"status": "refused", "reason": "invalid_arguments", "error": str(e)}
        try:
            ch = await client.run(script, tools=tools, server_tools=server_tools, on_approval=on_approval,
                                  timeout=timeout, policy=policy, limits=limits)
        except AirlockError as e:
            return error_summary(e)
        return chain_summary(ch)

    t.execute, t.declarations = execute, decl
    if format == "generic":
        t["execute"] = execute
    return t


__all__ = ["code_mode_tool", "async_code_mode_tool", "chain_summary", "error_summary", "describe", "CodeModeTool",
           "INPUT_SCHEMA", "FORMATS"]
