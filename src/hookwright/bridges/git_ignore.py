"""Whether git would commit a file, worked out by reading ignore files, never by running git:
git reads the repository's own configuration, and a repository can make that run a program
(`core.fsmonitor`, `core.hooksPath`, an alias) before anything is trusted.

The rules read, as git ranks them (the first that decides, the last matching pattern of it):
the `.gitignore` files from the folder holding the file up to the work tree's root, the
repository's `info/exclude`, then the user's global excludes file (`core.excludesFile` of
`~/.gitconfig` or `$XDG_CONFIG_HOME/git/config`, else `$XDG_CONFIG_HOME/git/ignore`). A file in
an ignored folder stays ignored whatever a later rule says, as in git. The repository's own
configuration is not read. Files in the repository are read only when they are regular files
(no link followed, nothing that could block), each up to `MAX_RULES_BYTES`."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from pathspec import GitIgnoreSpec

#: The most read of one ignore or config file; the rest of a larger file is not looked at.
MAX_RULES_BYTES = 1024 * 1024


def read_small_text(path: Path, *, follow: bool) -> str | None:
    """`path`'s text when it is a regular file (None otherwise, or when it cannot be read);
    opened without blocking, and without following a final link unless `follow`."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, MAX_RULES_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None
    finally:
        os.close(fd)


def work_tree(folder: Path) -> Path | None:
    """The root of the git work tree `folder` lies in (the nearest folder holding `.git`)."""
    for candidate in (folder, *folder.parents):
        if os.path.lexists(candidate / ".git"):
            return candidate
    return None


def git_dir(root: Path) -> Path:
    """The repository folder of the work tree at `root`: `.git`, or where a `.git` file (a
    linked work tree, a submodule) points, or the common folder of a linked work tree."""
    dot_git = root / ".git"
    text = read_small_text(dot_git, follow=False)
    if text is None or not text.startswith("gitdir:"):
        return dot_git
    linked = root / text.removeprefix("gitdir:").strip()
    common = read_small_text(linked / "commondir", follow=False)
    return linked / common.strip() if common else linked


def config_value(text: str, section: str, key: str) -> str | None:
    """The last value of `section.key` in git configuration `text` (names compared without
    case; double quotes and comments handled, includes not followed)."""
    found, current = None, ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            header, _, line = line[1:].partition("]")
            current = header.strip().lower()
            line = line.strip()
        name, equals, value = line.partition("=")
        if current == section and equals and name.strip().lower() == key:
            found = _unquote(value)
    return found


def _unquote(value: str) -> str:
    out, quoted, chars = [], False, iter(value.strip())
    for char in chars:
        if char == '"':
            quoted = not quoted
        elif char == "\\":
            out.append(next(chars, ""))
        elif char in "#;" and not quoted:
            break
        else:
            out.append(char)
    return "".join(out).strip()


def global_excludes(home: Path, env: Mapping[str, str]) -> Path:
    """The user's global excludes file: `core.excludesFile`, else git's default."""
    xdg = Path(env.get("XDG_CONFIG_HOME") or home / ".config") / "git"
    configs = [xdg / "config", home / ".gitconfig"]
    if env.get("GIT_CONFIG_GLOBAL"):
        configs = [Path(env["GIT_CONFIG_GLOBAL"])]
    chosen = None
    for config in configs:
        text = read_small_text(config, follow=True)
        value = None if text is None else config_value(text, "core", "excludesfile")
        chosen = value or chosen
    if chosen is None:
        return xdg / "ignore"
    return home / chosen[2:] if chosen.startswith("~/") else Path(chosen)


@dataclass(frozen=True, slots=True)
class Rules:
    """One file's patterns and the folder they are relative to (a tuple of names from the
    work tree's root)."""

    base: tuple[str, ...]
    spec: GitIgnoreSpec

    @classmethod
    def read(cls, base: tuple[str, ...], path: Path, *, follow: bool) -> Rules | None:
        text = read_small_text(path, follow=follow)
        return None if text is None else cls(base, GitIgnoreSpec.from_lines(text.splitlines()))

    def verdict(self, parts: tuple[str, ...], folder: bool) -> bool | None:
        """True: ignored, False: a `!` pattern takes it back, None: no pattern matches."""
        if parts[: len(self.base)] != self.base or len(parts) <= len(self.base):
            return None
        relative = "/".join(parts[len(self.base) :]) + ("/" if folder else "")
        return self.spec.check_file(relative).include


def _decides(ranked: Iterable[Rules], parts: tuple[str, ...], folder: bool) -> bool:
    for rules in ranked:
        verdict = rules.verdict(parts, folder)
        if verdict is not None:
            return verdict
    return False


def ignored(root: Path, path: Path, home: Path, env: Mapping[str, str]) -> bool:
    """Whether git ignores `path`, a file in the work tree at `root`."""
    parts = path.relative_to(root).parts
    repository = git_dir(root)
    outer = [
        Rules.read((), repository / "info" / "exclude", follow=False),
        Rules.read((), global_excludes(home, env), follow=True),
    ]
    in_tree = [
        Rules.read(parts[:depth], root.joinpath(*parts[:depth], ".gitignore"), follow=False)
        for depth in range(len(parts))
    ]
    ranked = [rules for rules in (*reversed(in_tree), *outer) if rules is not None]
    return any(
        _decides(ranked, parts[:depth], folder=depth < len(parts))
        for depth in range(1, len(parts) + 1)
    )


def committable(path: Path, home: Path, env: Mapping[str, str]) -> bool:
    """Whether `path` lies in a git work tree and git does not ignore it."""
    root = work_tree(path.parent)
    return root is not None and not ignored(root, path, home, env)
