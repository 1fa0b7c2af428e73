"""The hook side of PicoClaw's JSON-RPC 2.0 stdio protocol: one line in, at most one line out.

PicoClaw writes requests (``{"jsonrpc":"2.0","id":N,"method":"hook.x","params":{...}}``) and
notifications (no ``id``); it reads responses by their unsigned integer id. A line that is not
a JSON-RPC request gets an error response (id null when none can be read), never a crash; a
notification gets no answer, whatever happens to it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hookwright.config.safeparse import ParseError
from hookwright.transports.rpc import decode_line, encode_message

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

MessageId = int | str | None


@dataclass(frozen=True, slots=True)
class Call:
    """A request (`notification` False: it wants an answer under `id`) or a notification."""

    method: str
    params: Mapping[str, Any]
    id: MessageId
    notification: bool


class RpcFault(Exception):
    """A request that gets a JSON-RPC error instead of a result."""

    def __init__(self, code: int, message: str, msg_id: MessageId = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.msg_id = msg_id


def _id_of(message: Mapping[str, Any]) -> tuple[MessageId, bool]:
    """The request's id and whether it has one; a bool, float or structured id is invalid."""
    if "id" not in message:
        return None, False
    msg_id = message["id"]
    if msg_id is None or (isinstance(msg_id, int | str) and not isinstance(msg_id, bool)):
        return msg_id, True
    raise RpcFault(INVALID_REQUEST, "invalid request: id must be a number or a string")


def parse_call(line: bytes) -> Call:
    """The call on `line`; raises `RpcFault` for a line that is not one."""
    try:
        message = decode_line(line)
    except (ParseError, ValueError) as exc:
        raise RpcFault(PARSE_ERROR, f"parse error: {exc}") from None
    if not isinstance(message, dict):
        raise RpcFault(INVALID_REQUEST, "invalid request: not a JSON object")
    msg_id, has_id = _id_of(message)
    method = message.get("method")
    if message.get("jsonrpc") != "2.0" or not isinstance(method, str):
        raise RpcFault(INVALID_REQUEST, "invalid request: needs jsonrpc 2.0 and a method", msg_id)
    params = message.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise RpcFault(INVALID_PARAMS, "invalid params: not an object", msg_id)
    return Call(method, params, msg_id, not has_id)


def result_line(msg_id: MessageId, result: Any) -> bytes:
    return encode_message({"jsonrpc": "2.0", "id": msg_id, "result": result})


def error_line(msg_id: MessageId, code: int, message: str) -> bytes:
    return encode_message(
        {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}
    )
