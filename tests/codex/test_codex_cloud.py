"""The workspace's cloud-managed requirements, read from the signed copy Codex CLI 0.171.0
keeps in ``$CODEX_HOME/cloud-config-bundle-cache.json``, under Codex's rules (a sign-in kept in
the system keyring: `test_codex_keyring`).

``cloud_bundle_cache_0171.json`` is a copy Codex CLI 0.171.0 wrote itself, fetched from a
local server standing for OpenAI's, for a ChatGPT Business sign-in as `auth_json` makes."""

from __future__ import annotations

import base64
import copy
import hashlib
import hmac
import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from tests.cli_runner import run_scripted
from tests.codex.project import bash, script
from tests.codex.test_codex_layers import bound, every_layer, hooks_json, inline, reviews, run

from hookwright.config.loading import Diagnostic
from hookwright.dialects.codex.cloud import CACHE_FILE, cloud_layers
from hookwright.dialects.codex.signin import read_sign_in

CODEX_WROTE = Path(__file__).with_name("cloud_bundle_cache_0171.json")
WRITTEN_AT = datetime(2026, 11, 28, 4, 42, 21, tzinfo=UTC)
KEY = b"codex-cloud-config-bundle-cache-v1-6160ae70-bcfd-4ca8-a99b-40f73b3b072e"
GUARD = (
    '[[hooks.PreToolUse]]\nmatcher = "Bash"\n[[hooks.PreToolUse.hooks]]\ntype = "command"\n'
    'command = "echo refused by the workspace >&2; exit 2"\ntimeout = 5\n'
)
REFUSED = "Command blocked by PreToolUse hook: refused by the workspace. Command: touch made.txt"


def auth_json(codex_home: Path, plan: str, user: str = "user") -> None:
    """A ChatGPT sign-in as Codex records it: unsigned tokens naming `user`, account
    ``account`` and `plan`."""
    claims = {
        "https://api.openai.com/auth": {
            "chatgpt_account_id": "account",
            "chatgpt_plan_type": plan,
            "chatgpt_user_id": user,
        }
    }
    body = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    token = f"eyJhbGciOiJub25lIn0.{body}.signature"
    tokens = {"id_token": token, "access_token": token, "refresh_token": "r"}
    auth = {"OPENAI_API_KEY": None, "tokens": {**tokens, "account_id": "account"}}
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "auth.json").write_text(json.dumps(auth))


def cache(codex_home: Path, requirements: str, **payload: Any) -> Path:
    """A bundle cached as Codex caches it, signed over serde_json's compact form; `payload`
    replaces fields after signing (a tampered copy) when it holds ``tamper=True``."""
    tamper = payload.pop("tamper", False)
    now = datetime.now(UTC)
    signed: dict[str, Any] = {
        "version": 1,
        "cached_at": now.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "expires_at": (now + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "chatgpt_user_id": "user",
        "account_id": "account",
        "bundle": {
            "config_toml": {"enterprise_managed": []},
            "requirements_toml": {
                "enterprise_managed": [{"id": "r1", "name": "Guard", "contents": requirements}]
            },
        },
    }
    if not tamper:
        signed.update(payload)
    text = json.dumps(signed, separators=(",", ":"), ensure_ascii=False).encode()
    signature = base64.b64encode(hmac.new(KEY, text, hashlib.sha256).digest()).decode()
    if tamper:
        signed.update(payload)
    file = codex_home / CACHE_FILE
    file.write_text(json.dumps({"signed_payload": signed, "signature": signature}, indent=2))
    return file


def cloud_read(codex_home: Path, now: datetime | None = None) -> tuple[list[Any], list[str]]:
    """The requirements tables read from the copy, and every line said."""
    diagnostics: list[Diagnostic] = []
    sign_in = read_sign_in(codex_home, diagnostics)
    bundle = cloud_layers(
        codex_home, sign_in, Path("/etc/codex/requirements.toml"), diagnostics, now
    )
    return [layer.table for layer in bundle.requirements], [str(d) for d in diagnostics]


def test_the_copy_codex_wrote_is_read_while_it_holds(tmp_path: Path) -> None:
    codex_home = tmp_path / ".codex"
    auth_json(codex_home, "business")
    shutil.copy(CODEX_WROTE, codex_home / CACHE_FILE)
    tables, said = cloud_read(codex_home, WRITTEN_AT)
    assert said == []
    assert [table["hooks"]["managed_dir"] for table in tables] == ["/opt/corp/codex-hooks"]
    assert tables[0]["hooks"]["PreToolUse"][0]["matcher"] == "Bash"


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ("contents", "it fails its signature check"),
        ("expired", "it expired at 2026-11-28T05:42:20.901155172Z"),
        ("account", "it was kept for another user or account"),
        ("version", "it fails its signature check"),
    ],
)
def test_a_tampered_expired_or_foreign_copy_is_not_read_and_said_once(
    tmp_path: Path, change: str, reason: str
) -> None:
    codex_home = tmp_path / ".codex"
    auth_json(codex_home, "business", user="someone-else" if change == "account" else "user")
    data = json.loads(CODEX_WROTE.read_text())
    if change == "contents":
        fragment = data["signed_payload"]["bundle"]["requirements_toml"]["enterprise_managed"][0]
        fragment["contents"] = "allow_managed_hooks_only = false\n"
    if change == "version":
        data["signed_payload"]["version"] = 2
    (codex_home / CACHE_FILE).write_text(json.dumps(data))
    now = WRITTEN_AT + timedelta(hours=2) if change == "expired" else WRITTEN_AT
    tables, said = cloud_read(codex_home, now)
    assert tables == []
    assert len(said) == 1 and f"are not read ({reason}; plan 'business' in auth.json)" in said[0]
    assert said[0].startswith(f"error: {codex_home / CACHE_FILE}: ")
    assert "start Codex online once to refresh the copy" in said[0]
    assert "mirror the bundle into /etc/codex/requirements.toml" in said[0]


@pytest.mark.parametrize("plan", ["plus", "team", "k12"])
def test_no_cloud_config_outside_a_workspace_plan(tmp_path: Path, plan: str) -> None:
    codex_home = tmp_path / ".codex"
    auth_json(codex_home, plan)
    cache(codex_home, GUARD)
    assert cloud_read(codex_home) == ([], [])


def test_a_workspace_sign_in_without_a_copy_says_what_is_not_read(tmp_path: Path) -> None:
    codex_home = tmp_path / ".codex"
    auth_json(codex_home, "enterprise")
    tables, said = cloud_read(codex_home)
    assert tables == [] and len(said) == 1
    assert "(it is absent; plan 'enterprise' in auth.json): Codex does not start" in said[0]


def test_config_fragments_are_managed_layers_the_bundle_s_last_first(tmp_path: Path) -> None:
    """Codex stacks the bundle's ``config.toml`` fragments lowest precedence first (the bundle
    lists the highest first), as managed layers named by the copy and the fragment."""
    codex_home = tmp_path / ".codex"
    auth_json(codex_home, "business")
    fragments = [
        {"id": "c1", "name": "High", "contents": 'model = "high"\n'},
        {"id": "c2", "name": "Low", "contents": 'model = "low"\n'},
    ]
    bundle = {
        "config_toml": {"enterprise_managed": fragments},
        "requirements_toml": {"enterprise_managed": []},
    }
    cache(codex_home, "", bundle=bundle)
    diagnostics: list[Diagnostic] = []
    read = cloud_layers(codex_home, read_sign_in(codex_home), Path("/r.toml"), diagnostics)
    assert diagnostics == [] and read.requirements == []
    assert [(layer.layer, layer.config) for layer in read.config] == [
        ("managed", {"model": "low"}),
        ("managed", {"model": "high"}),
    ]
    assert [layer.key for layer in read.config] == [
        "bundle.config_toml.enterprise_managed[1]",
        "bundle.config_toml.enterprise_managed[0]",
    ]
    assert {layer.file_read for layer in read.config} == {codex_home / CACHE_FILE}


def test_config_fragment_hooks_run_unreviewed_between_the_system_s_and_the_user_s(
    tmp_path: Path, managed_dir: Path
) -> None:
    """Measured with Codex CLI 0.171.0 (conformance case
    ``cloud_config_fragment_between_system_and_user``): the bundle's config hooks come after
    the system's ``config.toml`` and before the user's, the bundle's last fragment first; no
    review is needed, and ``[hooks.state] enabled = false`` does not turn them off. Its
    requirements hooks come before ``requirements.toml``'s (cases ``cloud_requirements_*``)."""
    home, project = every_layer(tmp_path, managed_dir)
    codex_home = home / ".codex"
    auth_json(codex_home, "business")
    fragments = [
        {"id": f"c{index}", "name": f"F{index}", "contents": inline(f"cloud-{index}")}
        for index in range(2)
    ]
    cache(
        codex_home,
        inline("cloud-requirements"),
        bundle={
            "config_toml": {"enterprise_managed": fragments},
            "requirements_toml": {
                "enterprise_managed": [
                    {"id": "r", "name": "R", "contents": inline("cloud-requirements")}
                ]
            },
        },
    )
    key = f"{codex_home / CACHE_FILE}:pre_tool_use:0:0"
    with (codex_home / "config.toml").open("a") as config:
        config.write(f"[hooks.state.{json.dumps(key)}]\nenabled = false\n")
    result = bound(home, project)
    assert [(spec.source, spec.name) for spec in result.specs] == [
        ("managed", "command:cloud-requirements"),
        ("managed", "command:requirements"),
        ("managed", "command:system-json"),
        ("managed", "command:system-toml"),
        ("managed", "command:cloud-1"),
        ("managed", "command:cloud-0"),
        ("user", "command:user"),
        ("project", "command:project"),
        ("managed", "command:legacy"),
    ]
    origins = [spec.origin for spec in result.specs if "cloud-" in spec.name][1:]
    assert origins == [
        f"{codex_home / CACHE_FILE}:bundle.config_toml.enterprise_managed[{index}]"
        ".hooks.PreToolUse[0].hooks[0]"
        for index in (1, 0)
    ]
    assert [d for d in result.diagnostics if CACHE_FILE in d.file] == []


def test_a_config_fragment_that_is_not_toml_makes_the_copy_unusable(tmp_path: Path) -> None:
    codex_home = tmp_path / ".codex"
    auth_json(codex_home, "business")
    fragment = {"id": "c1", "name": "Broken", "contents": "model = \n"}
    bundle = {
        "config_toml": {"enterprise_managed": [fragment]},
        "requirements_toml": {"enterprise_managed": []},
    }
    cache(codex_home, "", bundle=bundle)
    tables, said = cloud_read(codex_home)
    assert tables == [] and len(said) == 1
    assert "(its config fragment 'Broken' is not TOML (" in said[0]


def scene(tmp_path: Path, **payload: Any) -> tuple[Path, Path, Path]:
    """(home, project, model): a Business sign-in whose cached bundle holds the workspace's
    guard, and a model that runs ``touch made.txt``."""
    home, project = tmp_path / "home", tmp_path / "project"
    codex_home = home / ".codex"
    auth_json(codex_home, "business")
    cache(codex_home, GUARD, **payload)
    hooks_json(project / ".codex", "true")
    (codex_home / "config.toml").write_text(reviews(project / ".codex"))
    model = script(tmp_path / "s.json", [bash("touch made.txt"), {"content": "ok"}])
    return home, project, model


def test_the_workspace_guard_of_a_cached_bundle_refuses_in_a_real_run(
    tmp_path: Path, managed_dir: Path
) -> None:
    home, project, model = scene(tmp_path)
    assert run(home, project, model, managed_dir) == [REFUSED]
    assert not (project / "made.txt").exists()
    result = bound(home, project)
    guard = [spec for spec in result.specs if spec.source == "managed"]
    assert len(guard) == 1 and result.diagnostics == []


def test_a_tampered_bundle_runs_no_workspace_guard_and_says_so_once(
    tmp_path: Path, managed_dir: Path
) -> None:
    home, project, model = scene(tmp_path, tamper=True, account_id="another")
    env = {"CODEX_HOME": str(home / ".codex"), "HOOKWRIGHT_CODEX_MANAGED_DIR": str(managed_dir)}
    done = run_scripted(project, model, "--json", home=home, env=env)
    assert done.returncode == 0, done.stderr
    assert (project / "made.txt").exists()
    said_in_run = [line for line in done.stderr.splitlines() if CACHE_FILE in line]
    assert len(said_in_run) == 1 and said_in_run[0].startswith("error: "), done.stderr
    said = [d for d in bound(home, project).diagnostics if d.file.endswith(CACHE_FILE)]
    assert len(said) == 1 and "was kept for another user or account" not in said[0].message
    assert "it fails its signature check" in said[0].message and said[0].required


def test_the_copy_is_checked_as_serde_rewrites_it(tmp_path: Path) -> None:
    """Unknown fields are dropped and times rewritten as chrono writes them before the
    signature is checked, as Codex does: a copy with both still holds."""
    codex_home = tmp_path / ".codex"
    auth_json(codex_home, "business")
    data = json.loads(CODEX_WROTE.read_text())
    payload = copy.deepcopy(data["signed_payload"])
    payload["note"] = "ignored"
    payload["expires_at"] = "2026-11-28T06:42:20.901155172+01:00"
    (codex_home / CACHE_FILE).write_text(json.dumps({**data, "signed_payload": payload}))
    tables, said = cloud_read(codex_home, WRITTEN_AT)
    assert said == [] and len(tables) == 1


def test_requirements_fragments_win_over_the_file_the_first_over_later_ones_and_run_first(
    tmp_path: Path, managed_dir: Path
) -> None:
    """Measured with Codex CLI 0.171.0 (conformance cases ``cloud_requirements_two_fragments_*``
    and ``cloud_requirements_fragment_and_file_*``): the bundle's first requirements fragment's
    ``allow_managed_hooks_only`` wins over the second's and over ``requirements.toml``'s, and
    the fragments' hooks run first, in the bundle's order, then the file's."""
    home, project = every_layer(tmp_path, managed_dir)
    codex_home = home / ".codex"
    auth_json(codex_home, "business")
    requirements = managed_dir / "requirements.toml"
    requirements.write_text("allow_managed_hooks_only = true\n" + requirements.read_text())
    fragments = [
        {"id": "r1", "name": "First", "contents": "allow_managed_hooks_only = false\n"},
        {"id": "r2", "name": "Second", "contents": "allow_managed_hooks_only = true\n"},
    ]
    for fragment in fragments:
        fragment["contents"] += inline(f"cloud-{fragment['id']}")
    bundle = {
        "config_toml": {"enterprise_managed": []},
        "requirements_toml": {"enterprise_managed": fragments},
    }
    cache(codex_home, "", bundle=bundle)
    names = [spec.name for spec in bound(home, project).specs]
    assert names[:3] == ["command:cloud-r1", "command:cloud-r2", "command:requirements"]
    assert "command:user" in names and "command:project" in names
    fragments[0]["contents"] = fragments[0]["contents"].replace("false", "true")
    fragments[1]["contents"] = fragments[1]["contents"].replace("true", "false")
    cache(codex_home, "", bundle=bundle)
    names = [spec.name for spec in bound(home, project).specs]
    assert "command:user" not in names and "command:project" not in names
    assert names[:3] == ["command:cloud-r1", "command:cloud-r2", "command:requirements"]
