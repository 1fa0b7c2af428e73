"""How the user is signed in to Codex, as far as it decides which of OpenAI's curated plugin
marketplaces Codex loads.

Codex CLI 0.171.0 keeps its sign-in in ``$CODEX_HOME/auth.json``: ``auth_mode`` when set,
else an API key (``OPENAI_API_KEY``), else ChatGPT tokens (``tokens``). A ChatGPT sign-in, and
the other modes served by Codex's own backend (``chatgptAuthTokens``, ``agentIdentity``,
``personalAccessToken``, ``headers``), count as signed in with ChatGPT; an API key, a Bedrock
key or no sign-in at all do not. Measured with plugins of each marketplace and a ChatGPT
``auth.json`` made for the run (Codex asked no server): see `marketplaces.sign_in_refusal`.

The ChatGPT identity (the ``id_token``'s claims under ``https://api.openai.com/auth``: its
``chatgpt_plan_type`` and ``chatgpt_user_id``, and ``tokens.account_id``) decides whether the
workspace's cloud-managed config applies and whose cached copy may be used (`cloud`). The
access token's ``exp`` says when the sign-in expires: Codex refreshes the tokens (with the
refresh token, from OpenAI) once it is less than five minutes away, before it asks its backend
for anything. Measured offline: a usable cached copy is used whatever the sign-in's state (an
access token past its ``exp``, a refresh OpenAI refuses, an ``id_token`` past its ``exp``, a
``last_refresh`` a month old); without one Codex does not start, as with a live sign-in.
Neither the ``id_token``'s ``exp`` nor ``last_refresh`` starts a refresh.
"""

from __future__ import annotations

import base64
import binascii
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from hookwright.config.loading import Diagnostic
from hookwright.config.safeparse import ParseError, load_json_text, read_text
from hookwright.dialects.managed_paths import Platform

AUTH_FILE: Final = "auth.json"
#: ``auth_mode`` values Codex serves without its own backend.
_DIRECT_MODES: Final = frozenset({"apikey", "bedrockApiKey", "bedrockAccessKeys"})
_CLAIMS: Final = "https://api.openai.com/auth"


@dataclass(frozen=True, slots=True)
class SignIn:
    """`chatgpt`: signed in through Codex's backend; `file`: the ``auth.json`` read; `plan`,
    `user_id`, `account_id`: the ChatGPT identity, None where ``auth.json`` holds none;
    `unread`: why an ``auth.json`` that is there was not read (then nothing is known of the
    sign-in, and the workspace's cloud-managed config may apply); `expires`: the access
    token's ``exp`` (Unix time; None where it has none)."""

    chatgpt: bool
    file: Path
    plan: str | None = None
    user_id: str | None = None
    account_id: str | None = None
    unread: str | None = None
    expires: float | None = None

    def needs_refresh(self, now: float) -> bool:
        """Whether Codex would refresh the sign-in before asking its backend for anything,
        which offline it cannot: the access token expired, or expires within five minutes."""
        return self.expires is not None and self.expires - now <= REFRESH_MARGIN


#: How long before the access token's ``exp`` Codex refreshes it (measured: 299 s before
#: it refreshes, 310 s before it does not).
REFRESH_MARGIN: Final = 300


def read_sign_in(codex_home: Path, diagnostics: list[Diagnostic] | None = None) -> SignIn:
    """The sign-in ``$CODEX_HOME/auth.json`` records: none when it is absent, or cannot be
    read (a FIFO, a device, a folder, a link loop, over the size cap, not JSON) or may have
    been written by another user (`safeparse.not_owned`); a link is followed, and said in
    `diagnostics`. Codex itself reads any file there without a bound (a FIFO hangs it) and
    takes one it cannot parse as no sign-in."""
    file = codex_home / AUTH_FILE
    if not os.path.lexists(file):
        return SignIn(False, file)
    try:
        data: Any = load_json_text(read_text(file, owned=True), where=str(file))
    except ParseError as exc:
        return SignIn(False, file, unread=exc.reason)
    said = link_warning(file, "the sign-in")
    if said is not None and diagnostics is not None:
        diagnostics.append(said)
    if not isinstance(data, dict):
        return SignIn(False, file, unread="it is not a JSON object")
    tokens = data.get("tokens")
    tokens = tokens if isinstance(tokens, dict) else {}
    claims = _payload(tokens.get("id_token")).get(_CLAIMS)
    claims = claims if isinstance(claims, dict) else {}
    account = tokens.get("account_id")
    if not isinstance(account, str) or not account:
        account = _text(claims, "chatgpt_account_id")
    user = _text(claims, "chatgpt_user_id") or _text(claims, "user_id")
    plan = _text(claims, "chatgpt_plan_type")
    expires = _unix(_payload(tokens.get("access_token")).get("exp"))
    return SignIn(_through_backend(data), file, plan, user, account, expires=expires)


def _unix(value: object) -> float | None:
    """A JWT's ``exp`` as Unix time; None for what is not a finite number."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    try:
        unix = float(value)
    except OverflowError:
        return None
    return unix if math.isfinite(unix) else None


def _payload(token: object) -> Mapping[str, Any]:
    """The claims of a JWT (its signature is not checked: Codex does not check it either when
    it reads ``auth.json``); empty for what is not one."""
    if not isinstance(token, str) or token.count(".") != 2:
        return {}
    body = token.split(".")[1]
    try:
        payload = load_json_text(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    except (binascii.Error, ValueError):  # `ParseError` is a `ValueError`
        return {}
    return payload if isinstance(payload, dict) else {}


def _text(table: Mapping[str, Any], key: str) -> str | None:
    value = table.get(key)
    return value if isinstance(value, str) and value else None


def _through_backend(data: dict[str, Any]) -> bool:
    mode = data.get("auth_mode")
    if isinstance(mode, str) and mode:
        return mode not in _DIRECT_MODES
    key = data.get("OPENAI_API_KEY")
    if isinstance(key, str) and key:
        return False
    return isinstance(data.get("tokens"), dict)


#: Where Codex keeps the sign-in (``cli_auth_credentials_store``): ``file`` (the default) is
#: ``auth.json``; ``keyring`` the system keyring (service ``Codex Auth``, account
#: ``cli|`` and the first 16 hex digits of the SHA-256 of the canonical ``$CODEX_HOME``);
#: ``auto`` the keyring when one answers, else the file.
STORE_KEY: Final = "cli_auth_credentials_store"
_KEYRING_STORES: Final = {
    "keyring": "keeps the sign-in in the system keyring",
    "auto": "keeps the sign-in in the system keyring when one answers",
}


def keyring_answers(environ: Mapping[str, str], platform: Platform) -> bool:
    """Whether Codex could reach the system keyring: on Linux and the BSDs (``unix``) it is
    the Secret Service, reachable only over a D-Bus session bus (``DBUS_SESSION_BUS_ADDRESS``,
    else the socket ``bus`` in ``$XDG_RUNTIME_DIR``, else in ``/run/user/<uid>``); the macOS
    and Windows keychains are always there."""
    if platform != "unix":
        return True
    if environ.get("DBUS_SESSION_BUS_ADDRESS", "").strip():
        return True
    runtime = environ.get("XDG_RUNTIME_DIR", "").strip() or f"/run/user/{os.getuid()}"
    return Path(runtime, "bus").exists()


def stored_sign_in(
    settings: list[tuple[Path, Mapping[str, Any] | None]], sign_in: SignIn, answers: bool
) -> tuple[SignIn, Diagnostic | None]:
    """The sign-in Codex reads, given `settings` (config files, lowest precedence first; the
    last to set ``cli_auth_credentials_store`` decides) and whether a keyring `answers`, and
    one warning where that is not what ``auth.json`` says. Measured on Codex CLI 0.171.0
    without a session bus: ``keyring`` reads no sign-in at all (``codex login`` fails with "no
    secret service provider or dbus session found"), ``auto`` reads ``auth.json``. hookwright
    never reads the keyring itself: a hook engine has no business holding the user's OpenAI
    tokens, and a locked keyring would ask the user to unlock it in the middle of a run."""
    chosen = [
        (file, value)
        for file, config in settings
        if config is not None and isinstance(value := config.get(STORE_KEY), str)
    ]
    if not chosen or chosen[-1][1] not in _KEYRING_STORES:
        return sign_in, None
    file, value = chosen[-1]
    fix = (
        f'to keep it where both read it, set {STORE_KEY} = "file" in {file} and sign in again '
        "(codex login)"
    )
    if value == "auto" and not answers:
        return sign_in, None
    if not answers:
        message = (
            f"{value!r}: Codex keeps the sign-in in the system keyring, and no D-Bus session "
            "bus is reachable here (DBUS_SESSION_BUS_ADDRESS, $XDG_RUNTIME_DIR/bus), so Codex "
            f"reads no sign-in; hookwright takes the user as not signed in with ChatGPT, not "
            f"as {sign_in.file} records, for OpenAI's curated plugin marketplaces and the "
            f"workspace's cloud-managed config: {fix}"
        )
        return SignIn(False, sign_in.file), Diagnostic(str(file), STORE_KEY, message, "warning")
    assumed = "signed in with ChatGPT" if sign_in.chatgpt else "not signed in with ChatGPT"
    message = (
        f"{value!r}: Codex {_KEYRING_STORES[value]}, which hookwright does not read; it "
        f"takes the user as {assumed}, as {sign_in.file} records, for OpenAI's curated plugin "
        f"marketplaces and the workspace's cloud-managed config: {fix}"
    )
    return sign_in, Diagnostic(str(file), STORE_KEY, message, "warning")


def link_warning(file: Path, what: str) -> Diagnostic | None:
    """A warning when `file` is a link: Codex follows it, and so does hookwright, checking the
    file it names (`safeparse.not_owned`); but a file Codex writes itself is not normally a
    link, so the user is told where `what` was read from."""
    try:
        if not file.is_symlink():
            return None
        target = Path(os.path.realpath(file))
    except (OSError, ValueError):
        return None
    message = f"is a link to {target}: {what} is read from there, as Codex reads it"
    return Diagnostic(str(file), "", message, "warning")
