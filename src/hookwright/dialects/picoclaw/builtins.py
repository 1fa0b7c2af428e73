"""Builtins: in-process Python hooks, PicoClaw's `RegisterBuiltinHook` counterpart.

A builtin is made by a factory that receives the builtin's raw `config` JSON and returns an
object with any of the methods `before_llm`, `after_llm`, `before_tool`, `after_tool`,
`approve_tool`. Each takes the PicoClaw params dict (the same params a process receives) and
returns the same result dict a process would (`{"action": ..., ...}`, `{"approved": ...}`) or
None; sync or async. A factory is found by `register_builtin(name, factory)`, by the config's
`factory: "module:callable"` key, or by the builtin's name when it is itself `module:callable`.
"""

from __future__ import annotations

import asyncio
import copy
import importlib
import inspect
from collections.abc import Callable
from typing import Any

from hookwright.transports.base import (
    BaseTransport,
    Envelope,
    Failure,
    Output,
    Reply,
    WorkerRunner,
)

BuiltinFactory = Callable[[Any], Any]

METHOD_ORDER: tuple[str, ...] = (
    "before_llm",
    "after_llm",
    "before_tool",
    "after_tool",
    "approve_tool",
)

_REGISTRY: dict[str, BuiltinFactory] = {}


def register_builtin(name: str, factory: BuiltinFactory) -> None:
    """Make `factory` available to configs that name the builtin `name`."""
    _REGISTRY[name] = factory


def unregister_builtin(name: str) -> None:
    _REGISTRY.pop(name, None)


def import_factory(target: str) -> BuiltinFactory:
    module_name, _, attr = target.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    if not callable(obj):
        raise TypeError(f"{target} is not callable")
    return obj  # type: ignore[no-any-return]


def resolve_factory(name: str, factory: str | None) -> BuiltinFactory:
    """The factory for builtin `name`; raises LookupError, ImportError or AttributeError."""
    if factory is not None:
        return import_factory(factory)
    registered = _REGISTRY.get(name)
    if registered is not None:
        return registered
    if ":" in name:
        return import_factory(name)
    raise LookupError(
        f"builtin {name!r} is not registered and has no `factory` (expected module:callable)"
    )


class BuiltinTarget:
    """Calls one builtin object's methods; sync methods run on the session's bounded worker
    pool (`Services.workers`) so the interceptor and approval timeouts apply to them too."""

    kind = "builtin"

    def __init__(self, name: str, obj: Any) -> None:
        self.name = name
        self.obj = obj

    def methods(self) -> list[str]:
        return [m for m in METHOD_ORDER if callable(getattr(self.obj, m, None))]

    def transport(self) -> BuiltinTransport:
        return BuiltinTransport(self)

    async def call(self, method: str, params: dict[str, Any], workers: WorkerRunner | None) -> Any:
        """`method` of the builtin with a copy of `params`; a sync method on `workers`."""
        func = getattr(self.obj, method)
        argument = copy.deepcopy(params)
        if inspect.iscoroutinefunction(func):
            return await func(argument)
        if workers is None:
            result = func(argument)
        else:
            result = await workers.run(func, argument, name=f"{self.name}.{method}")
        if inspect.isawaitable(result):
            return await result
        return result

    def stderr_tail(self) -> str | None:
        return None

    async def aclose(self) -> None:
        closer = getattr(self.obj, "aclose", None) or getattr(self.obj, "close", None)
        if closer is None:
            return
        result = closer()
        if inspect.isawaitable(result):
            await result


class BuiltinTransport(BaseTransport):
    """Calls one method of a builtin (`envelope.method`, params `envelope.json`) under
    `envelope.timeout`; sync methods run on `envelope.workers` (the session's pool)."""

    __slots__ = ("target",)

    def __init__(self, target: BuiltinTarget) -> None:
        self.target = target

    async def handle(self, envelope: Envelope) -> Reply:
        try:
            async with asyncio.timeout(envelope.timeout):
                value = await self.target.call(
                    envelope.method or "", envelope.json, envelope.workers
                )
        except TimeoutError:
            return Failure("timeout", "timed out")
        except Exception as exc:
            return Failure("error", str(exc) or type(exc).__name__)
        return Output(value=value)

    async def aclose(self) -> None:
        await self.target.aclose()
