"""The workspace's cloud-managed requirements, read from the copy Codex keeps on disk.

Codex CLI 0.171.0 fetches a bundle of ``config.toml`` and ``requirements.toml`` fragments
from OpenAI (``<chatgpt_base_url>/wham/config/bundle``) when the user is signed in with
ChatGPT on a workspace plan (measured: ``business``, ``enterprise``, ``edu``, ``edu_plus``,
``edu_pro``, ``ent26``, ``enterprise_cbp_automation``, ``enterprise_cbp_usage_based``; not
``team``, ``plus``, ``k12``, ``free_workspace``, ``self_serve_business_usage_based``). It keeps
the bundle in ``$CODEX_HOME/cloud-config-bundle-cache.json``:
``{"signed_payload": {"version": 1, "cached_at", "expires_at", "chatgpt_user_id",
"account_id", "bundle": {"config_toml": {"enterprise_managed": [{"id", "name",
"contents"}]}, "requirements_toml": {...}}}, "signature"}``, the signature the base64
HMAC-SHA256 of the payload as serde_json writes it compactly (fields in that order, unknown
fields dropped) under a key built into Codex, for an hour. Codex uses the copy only when it
parses, its signature holds, its version is 1, it names the signed-in user and account, it
has not expired and every fragment parses; otherwise it fetches the bundle again, and does not
start when it cannot (measured offline: "Error loading config.toml: Failed to load cloud config
bundle (workspace-managed policies)."). hookwright reads the copy under the same rules and
never fetches. Its requirements fragments are requirements layers; its ``config.toml``
fragments are managed config layers between the system's ``config.toml`` and the user's
(Codex's ``EnterpriseManaged`` layers), the last fragment of the bundle first, as Codex stacks
them: their hooks run unreviewed, as managed hooks. When Codex would fetch the bundle, or
``auth.json`` cannot be read, one error says what is not read, why, and how to have both run
it; it is `required`: under a failure policy that closes its hooks, no session starts.

Both files are read with `safeparse`'s bounds and only when no other user can have written
them (`safeparse.not_owned`: anyone who can write the copy can sign it, the key being in
Codex): a FIFO, a device, a folder, a link loop, an oversized file, another user's file or one
others may write is refused with its reason; a link is followed and said.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from hookwright.config.loading import Diagnostic
from hookwright.config.safeparse import ParseError, load_json_text, read_text
from hookwright.dialects.codex.config import LayerFiles
from hookwright.dialects.codex.requirements import RequirementLayer
from hookwright.dialects.codex.signin import REFRESH_MARGIN, SignIn, link_warning

CACHE_FILE: Final = "cloud-config-bundle-cache.json"
_VERSION: Final = 1
_KEY: Final = b"codex-cloud-config-bundle-cache-v1-6160ae70-bcfd-4ca8-a99b-40f73b3b072e"
WORKSPACE_PLANS: Final = frozenset(
    {
        "business",
        "enterprise",
        "edu",
        "edu_plus",
        "edu_pro",
        "ent26",
        "enterprise_cbp_automation",
        "enterprise_cbp_usage_based",
    }
)
_FRAGMENTS: Final = "enterprise_managed"
#: RFC 3339 as chrono reads it: the date, ``T`` (or a space), the time, a fraction, the offset.
_TIMESTAMP: Final = re.compile(
    r"(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})"
)


class _Unusable(Exception):
    """Why Codex would not use the cached bundle (and would fetch it instead)."""


@dataclass(frozen=True, slots=True)
class _Moment:
    """A UTC instant to the nanosecond, as chrono keeps it."""

    when: datetime
    nanos: int

    def text(self) -> str:
        """As chrono writes it: no fraction, or 3, 6 or 9 digits, then ``Z``."""
        base = self.when.strftime("%Y-%m-%dT%H:%M:%S")
        if self.nanos == 0:
            return base + "Z"
        for digits, unit in ((3, 1_000_000), (6, 1_000)):
            if self.nanos % unit == 0:
                return f"{base}.{self.nanos // unit:0{digits}d}Z"
        return f"{base}.{self.nanos:09d}Z"

    def unix(self) -> float:
        """As Unix time (to the float's precision)."""
        return self.when.timestamp() + self.nanos / 1e9


def applies(sign_in: SignIn) -> bool:
    """Whether Codex looks for the workspace's cloud-managed config under this sign-in."""
    return sign_in.chatgpt and sign_in.plan in WORKSPACE_PLANS


@dataclass(frozen=True, slots=True)
class CloudBundle:
    """What hookwright reads of a cached bundle: its requirements fragments as requirements
    layers, in the bundle's order, and its ``config.toml`` fragments as managed config layers,
    in Codex's stack order (the bundle lists the highest precedence first); when the copy
    expires (Unix time), after which Codex no longer uses it."""

    requirements: list[RequirementLayer] = field(default_factory=list)
    config: list[LayerFiles] = field(default_factory=list)
    expires: float | None = None


def cloud_layers(
    codex_home: Path,
    sign_in: SignIn,
    requirements: Path,
    diagnostics: list[Diagnostic],
    now: datetime | None = None,
) -> CloudBundle:
    """The fragments of a cached bundle Codex would use; instead, a required error when Codex
    would fetch the bundle or the sign-in cannot be read (`requirements`: the file to mirror
    the requirements into). A usable copy is used whatever the sign-in's expiry, as Codex uses
    it; the error says when the sign-in must be renewed first (`codex login`), and holds until
    it would say so (`CloudBundle.expires`)."""
    if sign_in.unread is not None:
        diagnostics.append(_unread_sign_in(sign_in))
        return CloudBundle()
    if not applies(sign_in):
        return CloudBundle()
    file = codex_home / CACHE_FILE
    moment = now or datetime.now(UTC)
    try:
        bundle, expires = _valid_bundle(file, sign_in, moment)
    except _Unusable as reason:
        diagnostics.append(_not_read(file, sign_in, str(reason), requirements, moment))
        renew = sign_in.expires
        if renew is None or sign_in.needs_refresh(moment.timestamp()):
            return CloudBundle()
        return CloudBundle(expires=renew - REFRESH_MARGIN)
    said = link_warning(file, "the workspace's cloud-managed config")
    diagnostics.extend([said] if said is not None else [])
    return CloudBundle(
        [
            RequirementLayer(file, file, table, f"{_BUCKET_REQUIREMENTS}[{index}]")
            for index, table in enumerate(bundle["requirements_toml"])
        ],
        [
            LayerFiles("managed", None, table, file, file, f"{_BUCKET_CONFIG}[{index}]")
            for index, table in reversed(list(enumerate(bundle["config_toml"])))
        ],
        expires.unix(),
    )


_BUCKET_CONFIG: Final = f"bundle.config_toml.{_FRAGMENTS}"
_BUCKET_REQUIREMENTS: Final = f"bundle.requirements_toml.{_FRAGMENTS}"


def _fix(requirements: Path, renew: bool) -> str:
    online = (
        "sign in again with `codex login`, then start Codex online once to refresh the copy"
        if renew
        else "start Codex online once to refresh the copy (`codex login` first if its "
        "sign-in expired)"
    )
    return (
        f"{online}, or mirror the bundle into {requirements} and "
        f"{requirements.parent / 'config.toml'}"
    )


def _not_read(
    file: Path, sign_in: SignIn, reason: str, requirements: Path, now: datetime
) -> Diagnostic:
    fetches = "Codex does not start without them until it fetches them from OpenAI"
    renew = sign_in.expires is not None and sign_in.needs_refresh(now.timestamp())
    if sign_in.expires is not None and renew:
        when = _utc(sign_in.expires)
        tense = "expired" if sign_in.expires <= now.timestamp() else "expires"
        fetches += (
            f", which it does only once it has renewed the sign-in in {sign_in.file} (its "
            f"access token {tense} at {when})"
        )
    message = (
        f"the workspace's cloud-managed hooks and settings are not read ({reason}; plan "
        f"{sign_in.plan!r} in {sign_in.file.name}): {fetches}, and hookwright never does: "
        f"{_fix(requirements, renew)}"
    )
    return Diagnostic(str(file), "", message, "error", required=True)


def _utc(unix: float) -> str:
    """`unix` as an RFC 3339 UTC time; as a number where no date has it (a hostile ``exp``)."""
    try:
        return datetime.fromtimestamp(unix, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (OverflowError, OSError, ValueError):
        return f"Unix time {unix:g}"


def _unread_sign_in(sign_in: SignIn) -> Diagnostic:
    message = (
        f"not read ({sign_in.unread}): whether the workspace's cloud-managed hooks and "
        "settings apply is not known, so none are read: make it a file only you can write, "
        "or sign in again with `codex login`"
    )
    return Diagnostic(str(sign_in.file), "", message, "error", required=True)


def _valid_bundle(
    file: Path, sign_in: SignIn, now: datetime
) -> tuple[dict[str, list[Any]], _Moment]:
    """The cached bundle's fragments, each parsed, and when the copy expires, when Codex would
    use it (checked in Codex's order)."""
    if sign_in.user_id is None or sign_in.account_id is None:
        raise _Unusable("the sign-in names no ChatGPT user or account")
    if not os.path.lexists(file):
        raise _Unusable("it is absent")
    try:
        data = load_json_text(read_text(file, owned=True), where=str(file))
    except ParseError as exc:
        raise _Unusable(exc.reason) from None
    payload, signature = _cache_file(data)
    if not _signed(payload, signature):
        raise _Unusable("it fails its signature check")
    if payload["version"] != _VERSION:
        raise _Unusable(f"it has version {payload['version']}, not {_VERSION}")
    cached = (payload["chatgpt_user_id"], payload["account_id"])
    if None in cached or cached != (sign_in.user_id, sign_in.account_id):
        raise _Unusable("it was kept for another user or account")
    expires: _Moment = payload["expires_at"]
    moment = now.astimezone(UTC)
    if (expires.when, expires.nanos) <= (moment.replace(microsecond=0), moment.microsecond * 1000):
        raise _Unusable(f"it expired at {payload['expires_at'].text()}")
    bundle = payload["bundle"]
    fragments = {key: [_fragment_toml(f, key) for f in bundle[key][_FRAGMENTS]] for key in _BUCKETS}
    return fragments, expires


def _cache_file(data: Any) -> tuple[dict[str, Any], str]:
    """The signed payload (its fields in serde's order, timestamps as `_Moment`) and the
    signature; `_Unusable` where serde would not read the file."""
    if not isinstance(data, dict) or not isinstance(data.get("signature"), str):
        raise _Unusable("it is not a signed payload")
    raw = data.get("signed_payload")
    if not isinstance(raw, dict):
        raise _Unusable("it has no signed_payload")
    version = raw.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or not 0 <= version < 2**32:
        raise _Unusable("signed_payload.version is not a version")
    payload = {
        "version": version,
        "cached_at": _moment(raw.get("cached_at"), "cached_at"),
        "expires_at": _moment(raw.get("expires_at"), "expires_at"),
        "chatgpt_user_id": _optional_text(raw, "chatgpt_user_id"),
        "account_id": _optional_text(raw, "account_id"),
        "bundle": _bundle(raw.get("bundle")),
    }
    return payload, data["signature"]


def _moment(value: Any, name: str) -> _Moment:
    match = _TIMESTAMP.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        raise _Unusable(f"signed_payload.{name} is not an RFC 3339 time")
    date, time, fraction, offset = match.groups()
    zone = "+00:00" if offset in {"Z", "z"} else offset
    try:
        when = datetime.fromisoformat(f"{date}T{time}{zone}").astimezone(UTC)
    except ValueError:
        raise _Unusable(f"signed_payload.{name} is not a time") from None
    return _Moment(when, int((fraction or "0").ljust(9, "0")))


def _optional_text(raw: Mapping[str, Any], key: str) -> str | None:
    value = raw.get(key)
    if value is not None and not isinstance(value, str):
        raise _Unusable(f"signed_payload.{key} is not text")
    return value


def _bundle(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise _Unusable("signed_payload.bundle is missing")
    return {key: {_FRAGMENTS: _fragments(raw.get(key), key)} for key in _BUCKETS}


_BUCKETS: Final = ("config_toml", "requirements_toml")
_FIELDS: Final = ("id", "name", "contents")


def _fragments(raw: Any, bucket: str) -> list[dict[str, str]]:
    where = f"bundle.{bucket}.{_FRAGMENTS}"
    items = raw.get(_FRAGMENTS) if isinstance(raw, dict) else None
    if not isinstance(items, list):
        raise _Unusable(f"{where} is missing")
    fragments: list[dict[str, str]] = []
    for item in items:
        fields = {key: item.get(key) for key in _FIELDS} if isinstance(item, dict) else {}
        texts = {key: value for key, value in fields.items() if isinstance(value, str)}
        if len(texts) != len(_FIELDS):
            raise _Unusable(f"{where} holds a fragment without id, name and contents")
        fragments.append(texts)
    return fragments


def _signed(payload: Mapping[str, Any], signature: str) -> bool:
    """Whether `signature` is Codex's HMAC of the payload as serde_json writes it."""
    try:
        given = base64.b64decode(signature, validate=True)
    except (binascii.Error, ValueError):
        return False
    ordered = {
        **payload,
        "cached_at": payload["cached_at"].text(),
        "expires_at": payload["expires_at"].text(),
    }
    text = json.dumps(ordered, ensure_ascii=False, separators=(",", ":"))
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    digest = hmac.new(_KEY, data, hashlib.sha256).digest()
    return hmac.compare_digest(given, digest)


def _fragment_toml(fragment: Mapping[str, str], bucket: str) -> Mapping[str, Any]:
    """A fragment's TOML (a fragment that does not parse: Codex refetches)."""
    kind = "config" if bucket == "config_toml" else "requirements"
    try:
        return tomllib.loads(fragment["contents"])
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise _Unusable(f"its {kind} fragment {fragment['name']!r} is not TOML ({exc})") from None
