"""Skill prompt hooks on disk: `skills/<skill>/hooks/hooks.json` plus the `.md` texts it names.

```json
{"hooks": [{"name": "truncated-content-hint", "file": "truncated-content-hint.md",
            "timing": "after_tool_call", "role": "system", "persistent": false,
            "tool_filter": ["read_file", "search_text"]}]}
```

Loading is permissive per hook: a bad entry is rejected with a `SkillHookError` (logged as a
warning on the ``hookwright.skills`` logger and, when the caller passes ``errors``, appended to
it) and every other hook and skill still loads. A `hooks.json` that cannot be parsed, or whose
top level is not ``{"hooks": [...]}``, rejects the whole file.

Decisions beyond the seed:

- ``name`` must be unique within one skill; the first entry with a name wins and later ones are
  rejected. The same name in two skills is allowed: `HookInfo.skill` tells them apart.
- ``file`` must resolve (symlinks followed) to a regular file inside that skill's ``hooks/``.
- ``tool_filter`` may be omitted or ``null`` (every tool); an empty list is rejected because it
  could never match. It is only consulted for ``after_tool_call`` and ignored elsewhere.
- A prompt that is empty after stripping whitespace is rejected: providers refuse empty messages.
- Unknown keys are ignored so newer configs still load on older hosts, with two exceptions
  that keep a typo from passing unseen: a key that resembles ``tool_filter`` (``tool_fliter``)
  rejects the hook, since without its filter it would fire after every tool; a key that
  resembles another known key is logged as a warning, its value quoted.
- A skill name in ``enabled_skills`` that is not a single path component is rejected; a name
  listed twice is scanned once.
- A missing skills directory, an enabled skill without a directory, without ``hooks/`` or
  without ``hooks/hooks.json`` simply contributes no hooks.
"""

from __future__ import annotations

import errno
import logging
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeAlias

from hookwright.config.safeparse import ParseError, read_json, read_text, resolve_path
from hookwright.core.validation import json_type_name, unknown_key
from hookwright.core.words import listed

__all__ = ["HOOKS_FILE", "ROLES", "TIMINGS", "HookInfo", "SkillHookError", "scan_hooks"]

logger = logging.getLogger("hookwright.skills")

TIMINGS: Final[tuple[str, ...]] = (
    "after_user_input",
    "before_planning",
    "before_first_agent",
    "before_each_agent",
    "after_tool_call",
)
"""The five checkpoints, in the order a request reaches them."""

ROLES: Final[tuple[str, ...]] = ("system", "user")

HOOKS_DIR: Final = "hooks"
HOOKS_FILE: Final = "hooks.json"
DEFAULT_SKILLS_DIR: Final = "skills"

_Fail: TypeAlias = Callable[[str, str], None]


@dataclass(slots=True)
class HookInfo:
    """One loaded hook. ``file`` is as written in hooks.json; ``content`` is the prompt text."""

    name: str
    file: str
    timing: str
    role: str
    persistent: bool
    tool_filter: list[str] | None
    content: str
    skill: str


@dataclass(slots=True, frozen=True)
class SkillHookError:
    """Why a hook (or a whole hooks.json) was rejected.

    ``field`` is a path into the file such as ``hooks[2].timing``; it is empty when the error is
    about the file as a whole (unparseable JSON) or about the skill name.
    """

    skill: str
    file: str
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}, field {self.field}" if self.field else self.file
        return f"skill {self.skill!r}: {where}: {self.message}"


class _Collector:
    def __init__(self, sink: list[SkillHookError] | None, quiet: bool = False) -> None:
        self._sink = sink
        self._quiet = quiet
        self.count = 0

    def report(self, skill: str, file: Path | str, field: str, message: str) -> None:
        error = SkillHookError(skill=skill, file=str(file), field=field, message=message)
        self.count += 1
        if not self._quiet:
            logger.warning("rejected skill hook: %s", error)
        if self._sink is not None:
            self._sink.append(error)


def available_skills(project_dir: Path) -> list[str]:
    """The skills of a project: the folders of `<project>/skills`, sorted."""
    root = project_dir / DEFAULT_SKILLS_DIR
    if not root.is_dir():
        return []
    return sorted(entry.name for entry in root.iterdir() if entry.is_dir())


def skills_not_enabled(project_dir: Path, skills: list[str]) -> str | None:
    """A note naming the skills of the project that declare hooks (``hooks/hooks.json``) and
    are not among `skills`, each with its file, so their hooks do not run in this session
    (the reference agent runs only the skills it is told to, while `hooks list` lists every
    skill's); None when every such skill is enabled."""
    root = project_dir / DEFAULT_SKILLS_DIR
    off = [
        name
        for name in available_skills(project_dir)
        if name not in skills and (root / name / "hooks" / HOOKS_FILE).is_file()
    ]
    if not off:
        return None
    flags = " ".join(f"--skill {name}" for name in off)
    files = ", ".join(f"{DEFAULT_SKILLS_DIR}/{name}/hooks/{HOOKS_FILE}" for name in off)
    return (
        f"note: the hooks of {listed(off, 'skill')} ({files}) do not run in this session: a "
        f"skill's hooks run once it is enabled ({flags})"
    )


def unknown_skills(project_dir: Path, skills: list[str]) -> str | None:
    """Why `skills` cannot all be enabled in this project (one line), or None when they can."""
    known = available_skills(project_dir)
    unknown = [name for name in skills if name not in known]
    if not unknown:
        return None
    return (
        f"unknown {listed(unknown, 'skill')}: not in {project_dir / DEFAULT_SKILLS_DIR} "
        f"(available: {', '.join(known) or 'none'})"
    )


def scan_hooks(
    enabled_skills: list[str],
    skills_dir: str | None = None,
    *,
    errors: list[SkillHookError] | None = None,
    quiet: bool = False,
) -> list[HookInfo]:
    """Load the hooks of the enabled skills, in ``enabled_skills`` order then hooks.json order.

    ``skills_dir`` defaults to ``./skills`` relative to the current directory. Skills not in
    ``enabled_skills`` are never read. Rejections are logged and, if ``errors`` is given,
    appended to it; nothing is raised for bad configuration. ``quiet`` (with ``errors``): the
    caller reports the rejections itself, so they are not logged.
    """
    root = Path(skills_dir if skills_dir is not None else DEFAULT_SKILLS_DIR)
    collector = _Collector(errors, quiet=quiet and errors is not None)
    hooks: list[HookInfo] = []
    seen: set[str] = set()
    for index, skill in enumerate(enabled_skills):
        if not _is_plain_name(skill):
            collector.report(
                str(skill),
                root,
                f"enabled_skills[{index}]",
                "skill name must be a single directory name inside the skills directory",
            )
            continue
        if skill in seen:
            continue
        seen.add(skill)
        hooks.extend(_load_skill(root, skill, collector))
    return hooks


def _is_plain_name(skill: object) -> bool:
    if not isinstance(skill, str) or skill in ("", ".", ".."):
        return False
    return "/" not in skill and "\\" not in skill and "\0" not in skill


def _load_skill(root: Path, skill: str, collector: _Collector) -> list[HookInfo]:
    hooks_dir = root / skill / HOOKS_DIR
    config = hooks_dir / HOOKS_FILE
    if not hooks_dir.is_dir() or not config.exists():
        logger.debug("skill %r has no %s", skill, config)
        return []
    entries = _read_entries(config, skill, collector)
    if entries is None:
        return []
    loaded: list[HookInfo] = []
    names: set[str] = set()
    for index, entry in enumerate(entries):
        hook = _parse_entry(entry, f"hooks[{index}]", hooks_dir, config, skill, names, collector)
        if hook is not None:
            loaded.append(hook)
    return loaded


def _read_entries(config: Path, skill: str, collector: _Collector) -> list[Any] | None:
    try:
        data = read_json(config)
    except ParseError as exc:
        collector.report(skill, config, "", f"{exc.reason}; whole file rejected")
        return None
    if not isinstance(data, dict):
        collector.report(
            skill, config, "", f"top level must be an object, got {json_type_name(data)}"
        )
        return None
    if "hooks" not in data:
        collector.report(skill, config, "hooks", "missing required field")
        return None
    entries = data["hooks"]
    if not isinstance(entries, list):
        collector.report(skill, config, "hooks", f"must be an array, got {json_type_name(entries)}")
        return None
    return entries


_REQUIRED: Final[tuple[tuple[str, type], ...]] = (
    ("name", str),
    ("file", str),
    ("timing", str),
    ("role", str),
    ("persistent", bool),
)


def _parse_entry(
    entry: object,
    where: str,
    hooks_dir: Path,
    config: Path,
    skill: str,
    names: set[str],
    collector: _Collector,
) -> HookInfo | None:
    if not isinstance(entry, dict):
        collector.report(
            skill, config, where, f"hook must be an object, got {json_type_name(entry)}"
        )
        return None
    before = collector.count
    label = f"hook {entry['name']!r}: " if isinstance(entry.get("name"), str) else ""

    def fail(field: str, message: str) -> None:
        collector.report(skill, config, f"{where}.{field}", label + message)

    _check_unknown_keys(entry, skill, config, where, fail)
    for field, kind in _REQUIRED:
        if field not in entry:
            fail(field, "missing required field")
        elif not isinstance(entry[field], kind):
            fail(field, f"must be {_json_type(kind)}, got {json_type_name(entry[field])}")

    _check_name(entry.get("name"), names, fail)

    timing = entry.get("timing")
    if isinstance(timing, str) and timing not in TIMINGS:
        fail("timing", f"unknown timing {timing!r}; expected one of: {', '.join(TIMINGS)}")

    role = entry.get("role")
    if isinstance(role, str) and role not in ROLES:
        fail("role", f"unknown role {role!r}; expected one of: {', '.join(ROLES)}")

    tool_filter = _parse_tool_filter(entry.get("tool_filter"), fail)

    content: str | None = None
    file = entry.get("file")
    if isinstance(file, str):
        content = _read_prompt(hooks_dir, file, fail)

    if collector.count != before or content is None:
        return None
    return HookInfo(
        name=entry["name"],
        file=entry["file"],
        timing=entry["timing"],
        role=entry["role"],
        persistent=entry["persistent"],
        tool_filter=tool_filter,
        content=content,
        skill=skill,
    )


def _check_name(name: object, names: set[str], fail: _Fail) -> None:
    """A hook's name: not blank, and new in its skill (added to `names`)."""
    if isinstance(name, str):
        if not name.strip():
            fail("name", "must not be empty")
        elif name in names:
            fail("name", f"duplicate hook name {name!r} in this skill; the first one is kept")
        else:
            names.add(name)


_KNOWN_KEYS: Final = frozenset({*(field for field, _ in _REQUIRED), "tool_filter"})


def _check_unknown_keys(
    entry: dict[Any, Any], skill: str, config: Path, where: str, fail: _Fail
) -> None:
    for key, value in entry.items():
        if key in _KNOWN_KEYS:
            continue
        message, typo = unknown_key(str(key), value, _KNOWN_KEYS)
        if typo and "'tool_filter'" in message:
            fail(
                str(key),
                f"{message}; not loaded, since without it the hook would run after every tool",
            )
        elif typo:
            logger.warning("skill %s: %s: %s.%s: %s", skill, config, where, key, message)


def _parse_tool_filter(value: object, fail: _Fail) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        fail("tool_filter", f"must be an array of strings, got {json_type_name(value)}")
        return None
    if not value:
        fail("tool_filter", "empty array would match no tool; omit the field to match every tool")
        return None
    tools: list[str] = []
    for index, item in enumerate(value):
        if not isinstance(item, str) or not item:
            fail(f"tool_filter[{index}]", f"must be a non-empty string, got {json_type_name(item)}")
        else:
            tools.append(item)
    return tools


def _read_prompt(hooks_dir: Path, file: str, fail: _Fail) -> str | None:
    if not file:
        fail("file", "must not be empty")
        return None
    if Path(file).is_absolute() or file.startswith(("/", "\\")):
        fail("file", f"{file!r} must be a path relative to hooks/")
        return None
    try:
        target = resolve_path(hooks_dir / file)
        inside = target.is_relative_to(resolve_path(hooks_dir))
    except ParseError as exc:
        fail("file", f"{file!r}: {exc.reason}")
        return None
    if not inside:
        fail("file", f"{file!r} escapes hooks/ (resolves to {target})")
        return None
    try:
        mode = target.stat().st_mode
    except OSError as exc:
        missing = exc.errno in (errno.ENOENT, errno.ENOTDIR)
        why = f"not found in {hooks_dir}" if missing else f"cannot be read: {exc.strerror}"
        fail("file", f"prompt file {file!r} {why}")
        return None
    if not stat.S_ISREG(mode):
        fail("file", f"prompt file {file!r} is not a regular file")
        return None
    try:
        text = read_text(target)
    except ParseError as exc:
        fail("file", f"prompt file {file!r}: {exc.reason}")
        return None
    text = _strip_one_newline(text)
    if not text.strip():
        fail("file", f"prompt file {file!r} is empty")
        return None
    return text


def _strip_one_newline(text: str) -> str:
    if text.endswith("\r\n"):
        return text[:-2]
    if text.endswith("\n"):
        return text[:-1]
    return text


def _json_type(kind: type) -> str:
    return {str: "a string", bool: "a boolean (true or false)"}.get(kind, kind.__name__)
