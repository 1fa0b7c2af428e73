"""The sign-in's own expiry and the workspace's cloud-managed config, as Codex CLI 0.171.0
takes it (measured offline, conformance cases ``cloud_*expired_sign_in*``): a usable cached
copy is used whatever the sign-in's state; without one Codex must fetch the bundle, and first
renew a sign-in whose access token expired (or expires within five minutes), so the error
says so, naming ``auth.json`` and ``codex login``."""

from __future__ import annotations

import base64
import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from tests.cli_runner import run_scripted
from tests.codex.project import bash, script
from tests.codex.test_codex_cloud import REFUSED, cache, cloud_read, scene
from tests.codex.test_codex_cloud_policy import CLOSED_CODEX, unread_workspace
from tests.codex.test_codex_layers import run

from hookwright.config.loading import Diagnostic
from hookwright.dialects.codex.cloud import CACHE_FILE, cloud_layers
from hookwright.dialects.codex.signin import REFRESH_MARGIN, read_sign_in

HOUR = 3600


def _jwt(claims: dict[str, Any]) -> str:
    body = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    return f"eyJhbGciOiJub25lIn0.{body}.signature"


def signed_in(codex_home: Path, access_exp: object, id_exp: object = None, **extra: Any) -> None:
    """A ChatGPT Business sign-in as Codex records it, its access token's ``exp`` (and the
    ``id_token``'s) as given (None: no ``exp``); `extra`: more top-level fields."""
    identity = {
        "https://api.openai.com/auth": {
            "chatgpt_account_id": "account",
            "chatgpt_plan_type": "business",
            "chatgpt_user_id": "user",
        }
    }
    tokens = {
        "id_token": _jwt({**identity, **({} if id_exp is None else {"exp": id_exp})}),
        "access_token": _jwt({**identity, **({} if access_exp is None else {"exp": access_exp})}),
        "refresh_token": "r",
        "account_id": "account",
    }
    codex_home.mkdir(parents=True, exist_ok=True)
    auth = {"OPENAI_API_KEY": None, "tokens": tokens, **extra}
    (codex_home / "auth.json").write_text(json.dumps(auth))


@pytest.mark.parametrize(
    ("exp", "read"),
    [
        (1_900_000_000, 1_900_000_000.0),
        (1.5e9, 1.5e9),
        (None, None),
        ("1900000000", None),
        (True, None),
        (10**400, None),
    ],
)
def test_the_access_token_s_exp_is_read_and_nothing_else_is_taken_for_it(
    tmp_path: Path, exp: object, read: float | None
) -> None:
    signed_in(tmp_path, exp, id_exp=1)
    assert read_sign_in(tmp_path).expires == read


def test_an_exp_json_reads_as_infinite_is_no_expiry(tmp_path: Path) -> None:
    signed_in(tmp_path, None)
    auth = (tmp_path / "auth.json").read_text()
    token = json.loads(auth)["tokens"]["access_token"]
    body = base64.urlsafe_b64encode(b'{"exp": 1e999}').rstrip(b"=").decode()
    hostile = token.split(".")[0] + "." + body + ".signature"
    (tmp_path / "auth.json").write_text(auth.replace(token, hostile))
    assert read_sign_in(tmp_path).expires is None


@pytest.mark.parametrize(
    ("access", "identity", "refreshed"),
    [
        (-HOUR, None, None),  # the access token expired an hour ago
        (HOUR * 24, -HOUR, None),  # the id_token expired: Codex does not look
        (HOUR * 24, None, "2026-10-01T00:00:00Z"),  # refreshed two months ago: neither
    ],
)
def test_a_usable_copy_is_used_whatever_the_sign_in_s_state(
    tmp_path: Path, managed_dir: Path, access: int, identity: int | None, refreshed: str | None
) -> None:
    """Codex runs the copy's guard with its sign-in expired, even when OpenAI refuses the
    refresh (conformance case ``cloud_copy_used_with_an_expired_sign_in``)."""
    home, project, model = scene(tmp_path)
    now = int(time.time())
    extra = {} if refreshed is None else {"last_refresh": refreshed}
    signed_in(home / ".codex", now + access, None if identity is None else now + identity, **extra)
    assert run(home, project, model, managed_dir) == [REFUSED]
    assert not (project / "made.txt").exists()


def test_without_a_copy_an_expired_sign_in_is_named_with_codex_login(tmp_path: Path) -> None:
    codex_home = tmp_path / ".codex"
    expired = datetime(2026, 11, 28, 5, 0, tzinfo=UTC)
    signed_in(codex_home, int(expired.timestamp()))
    tables, said = cloud_read(codex_home, expired + timedelta(hours=1))
    assert tables == [] and len(said) == 1
    assert said[0].startswith(f"error: {codex_home / CACHE_FILE}: ")
    assert "(it is absent; plan 'business' in auth.json)" in said[0]
    assert (
        f"which it does only once it has renewed the sign-in in {codex_home / 'auth.json'} "
        "(its access token expired at 2026-11-28T05:00:00Z)"
    ) in said[0]
    assert ": sign in again with `codex login`, then start Codex online once" in said[0]


def test_an_expired_sign_in_is_said_for_an_expired_copy_too(tmp_path: Path) -> None:
    codex_home = tmp_path / ".codex"
    now = datetime.now(UTC)
    signed_in(codex_home, int(now.timestamp()) - HOUR)
    cache(codex_home, "", expires_at=(now - timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%SZ"))
    _, [said] = cloud_read(codex_home, now)
    assert "(it expired at " in said and "its access token expired at " in said
    assert "sign in again with `codex login`" in said


def test_a_sign_in_in_force_is_not_blamed_until_codex_would_renew_it(tmp_path: Path) -> None:
    """Ten minutes before its access token expires the sign-in is not named; the error holds
    until five minutes before (when Codex renews it first), when it says it expires."""
    codex_home = tmp_path / ".codex"
    now = datetime(2026, 11, 28, 5, 0, tzinfo=UTC)
    exp = int(now.timestamp()) + 600
    signed_in(codex_home, exp)
    diagnostics: list[Diagnostic] = []
    read = cloud_layers(codex_home, read_sign_in(codex_home), Path("/r.toml"), diagnostics, now)
    [said] = map(str, diagnostics)
    assert "auth.json (its access token" not in said and "`codex login` first if" in said
    assert read.expires == exp - REFRESH_MARGIN
    _, [later] = cloud_read(codex_home, now + timedelta(minutes=5, seconds=1))
    assert "(its access token expires at 2026-11-28T05:10:00Z)" in later


@pytest.mark.parametrize("exp", [-1e300, -(2**62)])
def test_a_hostile_exp_is_said_as_a_number(tmp_path: Path, exp: float) -> None:
    codex_home = tmp_path / ".codex"
    signed_in(codex_home, exp)
    _, [said] = cloud_read(codex_home)
    assert f"(its access token expired at Unix time {float(exp):g})" in said


def test_a_fail_closed_run_with_an_expired_sign_in_refuses_naming_it(
    tmp_path: Path, managed_dir: Path
) -> None:
    home, project, env = unread_workspace(tmp_path, CLOSED_CODEX)
    signed_in(home / ".codex", int(time.time()) - HOUR)
    model = script(tmp_path / "s.json", [bash("touch made.txt"), {"content": "ok"}])
    done = run_scripted(project, model, "--json", home=home, env=env)
    assert done.returncode == 2 and done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith(f"hookwright: error: not starting: {home / '.codex' / CACHE_FILE}: ")
    assert (
        f"renewed the sign-in in {home / '.codex' / 'auth.json'} (its access token expired" in line
    )
    assert "sign in again with `codex login`" in line and line.endswith("fails its hooks closed")
    assert not (tmp_path / "hook-ran").exists() and not (project / "made.txt").exists()
