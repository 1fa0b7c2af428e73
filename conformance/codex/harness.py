"""Run one case in real Codex CLI and in `hookwright run`, and observe what a hook author can.

Each run gets a fresh HOME and CODEX_HOME, whose `config.toml` points Codex at the fake API
and records Codex's review of every hook of the case except those marked unreviewed (the
review entries come from `hookwright.dialects.codex`, so a wrong hash shows as hooks that do
not run). The case's hooks are the project's `.codex/hooks.json`. What is observed: every
hook's raw stdin, working directory and order; every request the agent loop sent to the
model; the project's files afterwards.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from conformance.codex.cloud import (
    CHATGPT_BASE_URL,
    PLAN,
    REFRESH_TOKEN_URL,
    write_cloud_cache,
)
from conformance.codex.layers import (
    PLUGIN_ID,
    WORKTREE,
    CaseLayer,
    in_namespace,
    managed_folder,
    working_folder,
    write_layers,
)
from conformance.fake_responses import FakeOpenAI, Reply
from conformance.harness import (
    HOOK_PROGRAM,
    RUN_TIMEOUT,
    Action,
    Observation,
    hook_records,
    observe,
)
from hookwright.config.loading import LoadContext
from hookwright.dialects.codex.config import CodexHook as DeclaredHook
from hookwright.dialects.codex.config import LayerFiles, layer_hooks
from hookwright.dialects.codex.layers import MANAGED_DIR_ENV, read_layers
from hookwright.dialects.codex.review import review_key, trusted_hash

MODEL = "gpt-5"


@dataclass(frozen=True, slots=True)
class CodexHook:
    event: str
    label: str
    action: Action = field(default_factory=Action)
    matcher: str | None = None
    #: Seconds; None writes no ``timeout`` (Codex's default for the event).
    timeout: int | None = 10
    command: str | None = None
    """A shell command to run instead of the logging hook program."""
    reviewed: bool = True
    layer: CaseLayer = "project"
    #: More fields of the handler (``async``, ``statusMessage``).
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CodexCase:
    name: str
    prompt: str
    turns: Sequence[Reply]
    hooks: Sequence[CodexHook] = ()
    files: Mapping[str, str] = field(default_factory=dict)
    compare: frozenset[str] = frozenset({"stdin", "order", "model", "files"})
    #: TOML put first in a layer's file (``config.toml``, ``requirements.toml``, ...);
    #: ``{root}`` stands for the case's folder.
    toml: Mapping[CaseLayer, str] = field(default_factory=dict)
    #: Links in the project (path -> target), each target a path outside the project, in the
    #: case's folder: ``NAME/`` an empty folder, ``NAME.git/`` a git repository's ``.git``,
    #: else an empty file. A linked ``.git`` replaces the repository made for a subfolder.
    links: Mapping[str, str] = field(default_factory=dict)
    #: Whether both agents trust the project (Codex's and hookwright's ``--trust``).
    trusted: bool = True
    #: The id (``name@marketplace``) the case's plugin is installed and enabled under.
    plugin: str = PLUGIN_ID
    #: ``auth.json`` as the user is signed in: None (not signed in), ``chatgpt`` (tokens made
    #: for the run; the model is still the fake API's, through the case's provider) or
    #: ``apikey``; ``business``: a ChatGPT sign-in on a workspace plan; ``business-expired``:
    #: the same, its access token expired an hour ago (Codex tries to renew it, offline).
    sign_in: str | None = None
    #: The requirements TOML fragments of the workspace's cloud-managed bundle, in the
    #: bundle's order, cached by Codex for the ``business`` sign-in (``{root}`` stands for the
    #: case's folder); `cloud_config` its ``config.toml`` fragments. Neither: no copy is
    #: cached.
    cloud: Sequence[str] = ()
    cloud_config: Sequence[str] = ()
    #: hookwright's failure policy (the user's ``policy.yaml``); Codex has none.
    policy: str | None = None
    #: A deliberate difference documented in docs/codex.md: the case is run and its diff
    #: printed, and it is counted apart from the agreeing and the failing cases.
    differs: str | None = None
    #: The label of a hook after whose run the agent gets SIGINT (a second later, the agent's
    #: process alone, as `kill -INT` sends it), as a person pressing Ctrl-C mid-turn.
    interrupt_after: str | None = None

    def __post_init__(self) -> None:
        # A text is a sequence of texts too: one fragment given bare would be cached as one
        # fragment per character, which Codex refuses to start on.
        for name in ("cloud", "cloud_config"):
            if isinstance(getattr(self, name), str):
                raise TypeError(f"{self.name}: {name} is a list of fragments, not one text")


def layer_events(case: CodexCase) -> dict[CaseLayer, dict[str, list[dict[str, Any]]]]:
    """Each layer's hooks, as the ``hooks`` object of a ``hooks.json``."""
    layers: dict[CaseLayer, dict[str, list[dict[str, Any]]]] = {}
    for hook in case.hooks:
        command = hook.command or f"python3 {HOOK_PROGRAM} {hook.label}"
        timeout = {} if hook.timeout is None else {"timeout": hook.timeout}
        handler = {"type": "command", "command": command, **timeout, **hook.extra}
        group: dict[str, Any] = {"hooks": [handler]}
        if hook.matcher is not None:
            group = {"matcher": hook.matcher, **group}
        layers.setdefault(hook.layer, {}).setdefault(hook.event, []).append(group)
    return layers


def _toml(text: str) -> str:
    return json.dumps(text)


def config_toml(fake: FakeOpenAI, reviews: Sequence[tuple[str, str]], user_toml: str) -> str:
    """The user's `config.toml`: the case's own TOML (`user_toml`) after the top-level keys,
    so that its keys stay top-level, and before the tables for the fake API and the reviews."""
    lines = [
        f"model = {_toml(MODEL)}",
        'model_provider = "local"',
        f"chatgpt_base_url = {_toml(CHATGPT_BASE_URL)}",
        user_toml,
        "[model_providers.local]",
        'name = "local"',
        f"base_url = {_toml(fake.base_url)}",
        'wire_api = "responses"',
        'env_key = "LOCAL_API_KEY"',
        "request_max_retries = 0",
        "stream_max_retries = 0",
    ]
    for key, digest in reviews:
        lines += ["", f"[hooks.state.{_toml(key)}]", f"trusted_hash = {_toml(digest)}"]
    return "\n".join(lines) + "\n"


def prepare(case: CodexCase, fake: FakeOpenAI) -> tuple[Path, Path, Path]:
    root = Path(tempfile.mkdtemp(prefix="hw-codex-")).resolve()
    home, project = root / "home", root / "project"
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True)
    (project / ".codex").mkdir(parents=True)
    toml = {layer: text.replace("{root}", str(root)) for layer, text in case.toml.items()}
    user_toml = write_layers(root, home, project, layer_events(case), toml, case.plugin)
    (codex_home / "config.toml").write_text(user_toml)
    if case.sign_in is not None:
        (codex_home / "auth.json").write_text(json.dumps(auth_json(case.sign_in)))
    if case.cloud or case.cloud_config:
        requirements, config = (
            [text.replace("{root}", str(root)) for text in texts]
            for texts in (case.cloud, case.cloud_config)
        )
        write_cloud_cache(codex_home, requirements, config, "user", "account")
    if case.policy is not None:
        (home / ".hookwright").mkdir()
        (home / ".hookwright" / "policy.yaml").write_text(case.policy)
    make_links(root, project, case.links)
    if working_folder(project) != project and not os.path.lexists(project / ".git"):
        subprocess.run(["git", "init", "-q", str(project)], check=True, timeout=30)
    unreviewed = {h.label for h in case.hooks if not h.reviewed}
    reviews = {
        review_key(hook): trusted_hash(hook)
        for hook in _declared(root, home, project)
        if hook.layer != "managed"
        and not any(label in hook.command.split() for label in unreviewed)
    }
    (codex_home / "config.toml").write_text(config_toml(fake, list(reviews.items()), user_toml))
    for name, text in case.files.items():
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    actions = {
        hook.label: {
            "stdout": hook.action.stdout,
            "stderr": hook.action.stderr,
            "exit": hook.action.exit,
            "delay": hook.action.delay,
        }
        for hook in case.hooks
    }
    (root / "actions.json").write_text(json.dumps(actions))
    return root, home, project


def auth_json(sign_in: str) -> dict[str, Any]:
    """What Codex records in ``auth.json`` for a ChatGPT sign-in (unsigned tokens naming a
    made-up account, refreshed now, so Codex asks no server) or for an API key."""
    if sign_in == "apikey":
        return {"OPENAI_API_KEY": "sk-conformance"}
    expires = int(time.time()) - 3600 if sign_in.endswith("-expired") else 4102444800
    claims = {
        "email": "case@example.invalid",
        "exp": expires,
        "https://api.openai.com/auth": {
            "chatgpt_account_id": "account",
            "chatgpt_plan_type": PLAN if sign_in.startswith(PLAN) else "plus",
            "chatgpt_user_id": "user",
        },
    }
    token = ".".join((_base64({"alg": "none", "typ": "JWT"}), _base64(claims), "signature"))
    tokens = {"id_token": token, "access_token": token, "refresh_token": "refresh"}
    refreshed = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {
        "OPENAI_API_KEY": None,
        "tokens": {**tokens, "account_id": "account"},
        "last_refresh": refreshed,
    }


def _base64(data: Mapping[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def make_links(root: Path, project: Path, links: Mapping[str, str]) -> None:
    """Each link of `links`, and what it leads to in the case's folder `root`."""
    for name, target in links.items():
        place = root / target.rstrip("/")
        if target.endswith(".git/"):
            subprocess.run(["git", "init", "-q", str(place.parent)], check=True, timeout=30)
        elif target.endswith("/"):
            place.mkdir(parents=True)
        else:
            place.parent.mkdir(parents=True, exist_ok=True)
            place.write_text("")
        link = project / name
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(place)


def _declared(root: Path, home: Path, project: Path) -> list[DeclaredHook]:
    """Every hook of the case, read from the repository root and from the subfolder: whatever
    root a case's ``project_root_markers`` give, each hook Codex may read is reviewed, so one
    hookwright leaves out shows as a hook that runs in Codex only. A linked worktree's own
    ``.codex`` hooks are reviewed too, keyed by their own file: which of them and the main
    checkout's run says where each agent reads a worktree's hooks from."""
    managed = managed_folder(root)
    own = root / WORKTREE / ".codex"
    return [
        *(
            hook
            for folder in dict.fromkeys((project, working_folder(project)))
            for hook in read_layers(LoadContext(folder, home), [], managed).hooks
        ),
        *(layer_hooks(LayerFiles("project", own, None), []) if own.is_dir() else []),
    ]


def environment(root: Path, home: Path, fake: FakeOpenAI) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "CODEX_HOME": str(home / ".codex"),
        "LANG": "C.UTF-8",
        "SHELL": "/bin/bash",
        "LOCAL_API_KEY": "sk-conformance",
        "OPENAI_API_KEY": "sk-conformance",
        "OPENAI_BASE_URL": fake.base_url,
        "CODEX_REFRESH_TOKEN_URL_OVERRIDE": REFRESH_TOKEN_URL,
        "HW_CONF_LOG": str(root / "hooks.jsonl"),
        "HW_CONF_ACTIONS": str(root / "actions.json"),
        MANAGED_DIR_ENV: str(managed_folder(root)),
    }


def codex_command(codex: Path, case: CodexCase) -> list[str]:
    return [
        str(codex),
        "exec",
        "--json",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        *(["--trust"] if case.trusted else []),
        case.prompt,
    ]


def hookwright_command(case: CodexCase, project: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "hookwright",
        "run",
        case.prompt,
        "--project",
        str(project),
        *(["--trust"] if case.trusted else []),
        "--model",
        f"openai-responses:{MODEL}",
        "--permission-mode",
        "bypassPermissions",
    ]


def _run(
    command: list[str], cwd: Path, env: dict[str, str], interrupt: Callable[[], bool] | None
) -> subprocess.CompletedProcess[str]:
    """Run in a process group of its own, killed whole on timeout (Codex's npm shim starts
    the native binary as a child); SIGINT to the agent a second after `interrupt` says so."""
    with subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as process:
        try:
            if interrupt is not None:
                _interrupt_when(process, interrupt)
            out, err = process.communicate(timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            out, err = process.communicate()
        return subprocess.CompletedProcess(command, process.returncode, out, err)


def _interrupt_when(process: subprocess.Popen[str], ready: Callable[[], bool]) -> None:
    """SIGINT to `process` a second after `ready()` holds (polled; the run's timeout bounds
    it), unless it ended first."""
    deadline = time.monotonic() + RUN_TIMEOUT
    while not ready() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)
    if process.poll() is None:
        process.send_signal(signal.SIGINT)


def run(agent: str, case: CodexCase, fake: FakeOpenAI, codex: Path | None = None) -> Observation:
    root, home, project = prepare(case, fake)
    script = fake.load(case.turns)
    env = environment(root, home, fake)
    cwd = working_folder(project)
    command = codex_command(codex, case) if codex else hookwright_command(case, cwd)
    if codex:
        command = in_namespace(root, command)
    label = case.interrupt_after
    ready = None if label is None else lambda: any(r["label"] == label for r in hook_records(root))
    done = _run(command, cwd, env, ready)
    files_of = cwd if cwd == root / WORKTREE else project
    return observe(agent, done, [r.body for r in script.requests if r.loop], root, home, files_of)
