"""The workspace's cloud-managed bundle as Codex CLI 0.171.0 caches it in
``$CODEX_HOME/cloud-config-bundle-cache.json``: signed for the case's ChatGPT sign-in and
fresh, so that Codex uses it without asking OpenAI (measured) and hookwright reads it.

Codex is pointed at a closed port on 127.0.0.1 for everything it would ask ChatGPT's backend
(`CHATGPT_BASE_URL`) and for renewing an expired sign-in (`REFRESH_TOKEN_URL`): a case without
a usable copy shows what Codex does offline."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Final

#: The key Codex signs its copy with (built into Codex; the copy's integrity, not a secret).
_KEY: Final = b"codex-cloud-config-bundle-cache-v1-6160ae70-bcfd-4ca8-a99b-40f73b3b072e"
#: The workspace plan the case signs in with: one Codex fetches the bundle for.
PLAN: Final = "business"
#: Where Codex asks ChatGPT's backend (the bundle, its apps): port 9 on 127.0.0.1, refused.
CHATGPT_BASE_URL: Final = "http://127.0.0.1:9/backend-api/"
#: Where Codex renews an expired sign-in (``CODEX_REFRESH_TOKEN_URL_OVERRIDE``): refused too.
REFRESH_TOKEN_URL: Final = "http://127.0.0.1:9/oauth/token"


def _fragments(contents: Sequence[str], name: str) -> list[dict[str, str]]:
    return [
        {"id": f"case-{place}", "name": f"{name} {place}", "contents": text}
        for place, text in enumerate(contents, 1)
    ]


def write_cloud_cache(
    codex_home: Path,
    requirements: Sequence[str],
    config: Sequence[str],
    user: str,
    account: str,
) -> None:
    """The requirements fragments `requirements` and the config fragments `config`, in the
    bundle's order, cached for `user` and `account` for an hour, signed over the payload as
    serde_json writes it."""
    now = datetime.now(UTC)
    payload: dict[str, Any] = {
        "version": 1,
        "cached_at": now.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "expires_at": (now + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "chatgpt_user_id": user,
        "account_id": account,
        "bundle": {
            "config_toml": {"enterprise_managed": _fragments(config, "Conformance config")},
            "requirements_toml": {"enterprise_managed": _fragments(requirements, "Conformance")},
        },
    }
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    signature = base64.b64encode(hmac.new(_KEY, text, hashlib.sha256).digest()).decode()
    cache = {"signed_payload": payload, "signature": signature}
    (codex_home / "cloud-config-bundle-cache.json").write_text(json.dumps(cache, indent=2))
