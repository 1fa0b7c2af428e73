"""The one rule for keeping secret values out of what hookwright writes: each registered value
is replaced by ``***``, as written and as written inside a JSON string.

Every writer uses it: the text hooks send out (`hookwright.core.outward`), the audit
(`hookwright.monitor.audit`), the OpenTelemetry spans (`hookwright.monitor.otel`) and the debug
trace (`hookwright.monitor.debug`). The audit and the spans redact the secrets their engine
registered (`AuditLog.add_secret`: OpenHarness ``${secrets.NAME}`` values, `spec.secrets`);
each registration also lands in this process's set (`register`), which the debug trace uses, as it
is written from places that know no engine (a process being spawned)."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterable
from json.encoder import encode_basestring, encode_basestring_ascii

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

REDACTED = "***"

_lock = threading.Lock()
#: Every secret registered in this process; a tuple replaced whole, so readers need no lock.
_known: tuple[str, ...] = ()


@functools.lru_cache(maxsize=4096)
def _json_forms(secret: str) -> tuple[str, ...]:
    """`secret` as it is written inside a JSON string (non-ASCII kept, or escaped), when
    that differs from the secret itself."""
    forms = (encode_basestring(secret)[1:-1], encode_basestring_ascii(secret)[1:-1])
    return tuple(form for form in dict.fromkeys(forms) if form != secret)


def redact(text: str, secrets: Iterable[str]) -> str:
    """`text` with every secret in it replaced by ``***``, as written or JSON-escaped (a
    secret in a JSON document shown as text)."""
    for secret in secrets:
        if not secret:
            continue
        for form in (secret, *_json_forms(secret)):
            if form in text:
                text = text.replace(form, REDACTED)
    return text


def redact_json(text: str, secrets: Iterable[str]) -> str:
    """`text`, a JSON document, with every secret inside its strings replaced by ``***``: only
    the escaped forms are looked for where escaping changes the secret, so the document's own
    quotes and commas are never taken for part of one."""
    for secret in secrets:
        if not secret:
            continue
        for form in _json_forms(secret) or (secret,):
            if form in text:
                text = text.replace(form, REDACTED)
    return text


def redact_data(value: Any, secrets: Iterable[str]) -> Any:
    """`value` with every secret redacted from every string in it (dicts and lists walked)."""
    secrets = tuple(secrets)
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, dict):
        return {key: redact_data(item, secrets) for key, item in value.items()}
    if isinstance(value, list):
        return [redact_data(item, secrets) for item in value]
    return value


def register(secret: str) -> None:
    """Add `secret` to this process's set (what the debug trace redacts)."""
    global _known
    if not secret:
        return
    with _lock:
        if secret not in _known:
            _known = (*_known, secret)


def known() -> tuple[str, ...]:
    """Every secret registered in this process."""
    return _known


__all__ = ["REDACTED", "known", "redact", "redact_data", "redact_json", "register"]
