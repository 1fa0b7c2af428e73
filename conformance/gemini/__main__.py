"""`make conformance`, Gemini CLI suite: each case in real Gemini CLI and in `hookwright run`.

Installs the pinned Gemini CLI from npm into a temporary folder (or uses `--gemini PATH` /
`HOOKWRIGHT_CONFORMANCE_GEMINI`) and runs every case headless (`-p`, yolo approvals) against
a scripted fake Gemini API on 127.0.0.1; `hookwright run` runs the same project (its
`.gemini/settings.json`) against the fake Anthropic API with the same turns. Compared: the
order of (event, hook), each hook's stdin (ids, paths, times, and the model-written parts of
the requests replaced by placeholders), and every line with `MARK` that reached the model.
Prints SKIP and exits 0 when npm or the CLI is unavailable.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.compare import UUID
from conformance.fake_api import FakeAnthropic
from conformance.fake_gemini import FakeGemini
from conformance.gemini_cases import GEMINI_CASES, GeminiCase
from conformance.harness import HOOK_PROGRAM, hook_records, project_files, run_agent
from conformance.npm_cli import NpmCli, Unavailable, installed

GEMINI_VERSION = "0.61.0"
GEMINI = NpmCli("@google/gemini-cli", GEMINI_VERSION, "gemini")
MODEL = "gemini-2.5-flash"


@dataclass(slots=True)
class Seen:
    agent: str
    order: list[str]
    stdin: list[str]
    model: list[str]
    files: dict[str, str]
    returncode: int
    output: str


def prepare(case: GeminiCase) -> tuple[Path, Path, Path]:
    root = Path(tempfile.mkdtemp(prefix="hw-gconf-")).resolve()
    home, project = root / "home", root / "project"
    (home / ".gemini").mkdir(parents=True)
    (project / ".gemini").mkdir(parents=True)
    user = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
    (home / ".gemini" / "settings.json").write_text(json.dumps(user))
    rules = {str(project): "TRUST_FOLDER"} if case.trusted else {}
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps(rules))
    hooks: dict[str, list[dict[str, Any]]] = {}
    actions = {}
    for hook in case.hooks:
        command = hook.command or f"python3 {HOOK_PROGRAM} {hook.label}"
        entry: dict[str, Any] = {"hooks": [{"type": "command", "command": command, **hook.extra}]}
        if hook.matcher is not None:
            entry = {"matcher": hook.matcher, **entry}
        hooks.setdefault(hook.event, []).append(entry)
        action = hook.action
        actions[hook.label] = {
            "stdout": action.stdout,
            "stderr": action.stderr,
            "exit": action.exit,
        }
    settings = {**case.settings, "hooks": hooks}
    (project / ".gemini" / "settings.json").write_text(json.dumps(settings))
    (root / "actions.json").write_text(json.dumps(actions))
    return root, home, project


def run(
    agent: str, case: GeminiCase, fake: FakeGemini | FakeAnthropic, gemini: Path | None
) -> Seen:
    root, home, project = prepare(case)
    script = fake.load(case.turns) if isinstance(fake, FakeGemini) else fake.load(case.turns, "ok")
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "HW_CONF_LOG": str(root / "hooks.jsonl"),
        "HW_CONF_ACTIONS": str(root / "actions.json"),
        "GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(root / "system-settings.json"),
    }
    if gemini is not None:
        env |= {"GEMINI_API_KEY": "dummy", "GOOGLE_GEMINI_BASE_URL": fake.base_url}
        command = [str(gemini), "--output-format", "stream-json", "-m", MODEL]
        command += ["--approval-mode", "yolo", "-p", case.prompt]
    else:
        env |= {"ANTHROPIC_BASE_URL": fake.base_url, "ANTHROPIC_API_KEY": "sk-ant-conformance"}
        command = [sys.executable, "-m", "hookwright", "run", case.prompt, "--project"]
        command += [str(project), "--trust", "--model", "anthropic:claude-opus-5"]
        command += ["--permission-mode", "bypassPermissions"]
    try:
        done = run_agent(command, project, env)
        records = hook_records(root)
        normalise = _normaliser(root, home, project)
        return Seen(
            agent=agent,
            order=_ordered([_event(r) + " " + r["label"] for r in records]),
            stdin=sorted(normalise(_stdin_view(r["stdin"])) + f" <- {r['label']}" for r in records),
            model=_marks([r.body for r in script.requests if r.loop]),
            files={k: normalise(v) for k, v in project_files(project).items()},
            returncode=done.returncode,
            output=done.stdout + done.stderr,
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _event(record: dict[str, str]) -> str:
    try:
        return str(json.loads(record["stdin"]).get("hook_event_name", "?"))
    except ValueError:
        return "?"


#: Events fired together at one point of the loop, compared as one set.
_TOGETHER = {"BeforeModel": "model", "BeforeToolSelection": "model"}


def _ordered(entries: list[str]) -> list[str]:
    """Entries with each run of one point of the loop sorted (hooks there run in parallel)."""
    result: list[str] = []
    run: list[str] = []
    key = None
    for entry in [*entries, ""]:
        event = entry.split(" ", 1)[0]
        this = _TOGETHER.get(event, event)
        if run and this != key:
            result += sorted(run)
            run = []
        run.append(entry)
        key = this
    return result[: len(entries)]


def _stdin_view(raw: str) -> str:
    """The stdin with what the two agents' own models and tools wrote replaced: the request's
    messages (each agent's own context), the model name and the shell tool's output."""
    try:
        body = json.loads(raw)
    except ValueError:
        return raw
    body["timestamp"] = "<time>"
    body["transcript_path"] = "<transcript>"
    for key in ("llm_request", "llm_response"):
        if key in body:
            body[key] = "<model exchange>"
    if isinstance(body.get("tool_response"), dict):
        body["tool_response"] = "<tool output>"
    return json.dumps(body, separators=(",", ":"))


def _normaliser(root: Path, home: Path, project: Path) -> Any:
    def normalise(text: str) -> str:
        for path, name in ((HOOK_PROGRAM, "<hook.py>"), (project, "<project>"), (home, "<home>")):
            text = text.replace(str(path), name)
        text = text.replace(str(root), "<root>")
        return UUID.sub("<id>", text)

    return normalise


def _marks(bodies: list[dict[str, Any]]) -> list[str]:
    """Every distinct line with MARK in any string (or JSON text) of the requests."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str):
            try:
                inner = json.loads(value)
            except ValueError:
                inner = None
            if isinstance(inner, dict | list):
                walk(inner)
                return
            found.update(line.strip() for line in value.splitlines() if "MARK" in line)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for body in bodies:
        walk(body.get("messages") or body.get("contents"))
    return sorted(found)


def differences(expected: Seen, actual: Seen) -> str:
    def view(seen: Seen) -> list[str]:
        data = {"order": seen.order, "stdin": seen.stdin, "model": seen.model, "files": seen.files}
        return json.dumps(data, indent=1, ensure_ascii=False).splitlines()

    diff = difflib.unified_diff(view(expected), view(actual), expected.agent, actual.agent, n=2)
    return "\n".join(line.rstrip("\n") for line in diff)


def run_case(
    case: GeminiCase, gemini_api: FakeGemini, claude_api: FakeAnthropic, gemini: Path
) -> str:
    expected = run("gemini-cli", case, gemini_api, gemini)
    actual = run("hookwright", case, claude_api, None)
    if not case.compare_files:
        expected.files = actual.files = {}
    diff = differences(expected, actual)
    if not case.trusted and not diff:
        refused = expected.returncode == 55
        said = "Gemini CLI does not trust" in actual.output and "exit 55" in actual.output
        if not (refused and said):
            return f"gemini exit {expected.returncode}; hookwright said: {actual.output[-300:]}"
    return diff


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.gemini", description=__doc__)
    parser.add_argument("--gemini", default=os.environ.get("HOOKWRIGHT_CONFORMANCE_GEMINI"))
    parser.add_argument("-k", dest="pattern", default="", help="run cases whose name has this")
    args = parser.parse_args(argv)
    cases = [case for case in GEMINI_CASES if args.pattern in case.name]
    failed: list[str] = []
    try:
        with (
            installed(GEMINI, args.gemini) as gemini,
            FakeGemini() as g_api,
            FakeAnthropic() as c_api,
        ):
            for case in cases:
                diff = run_case(case, g_api, c_api, gemini)
                print(f"{'FAIL' if diff else 'PASS'} gemini {case.name}", flush=True)
                if diff:
                    print(diff, flush=True)
                    failed.append(case.name)
    except Unavailable as exc:
        print(f"SKIP gemini conformance: {exc}")
        return 0
    print(
        f"{len(cases) - len(failed)} of {len(cases)} cases agree with Gemini CLI {GEMINI_VERSION}"
    )
    if failed:
        print("disagree: " + ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
