"""Bounded parsing of untrusted JSON and YAML: a value, or one `ParseError` with a clear line.

Config files, hook answers, JSON-RPC lines and stdin are written by whoever controls a
repository or a hook process. Parsing them must never raise anything but `ParseError`, and
must stay bounded in time and memory:

* bytes must be UTF-8 (a leading BOM is dropped);
* texts and files are capped in size (`MAX_TEXT_CHARS`, the hook-output cap);
* containers nest at most `MAX_DEPTH` levels, checked without recursion errors;
* integers have at most `MAX_INT_DIGITS` digits (Python's own int-string limit);
* YAML aliases may not expand a document beyond `MAX_YAML_NODES` nodes (alias bombs), and
  may not refer to the node they are part of.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

from hookwright.core.home import user_home

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_DEPTH = 200
MAX_TEXT_CHARS = 10_000_000
MAX_INT_DIGITS = sys.get_int_max_str_digits() or 4300
MAX_YAML_NODES = 100_000


class ParseError(ValueError):
    """Input that cannot be parsed within the bounds: `reason` is one line for a user, `where`
    names the input (a file) when the caller gave it, `line` the 1-based line of a YAML syntax
    error; `str()` is both."""

    def __init__(self, reason: str, where: str = "", *, line: int | None = None) -> None:
        super().__init__(f"{where}: {reason}" if where else reason)
        self.reason = reason
        self.where = where
        self.line = line


#: The byte order mark a UTF-8 file may start with (read past, as the ``utf-8-sig`` codec
#: does, without loading that codec's module).
_BOM = b"\xef\xbb\xbf"


def decode_utf8(data: bytes, *, where: str = "") -> str:
    """`data` as text, or a `ParseError` naming the first byte that is not UTF-8."""
    try:
        return data.removeprefix(_BOM).decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = f"byte 0x{data[exc.start : exc.start + 1].hex()} at offset {exc.start}"
        raise ParseError(f"not valid UTF-8 ({bad})", where) from None


def read_text(path: Path, *, limit: int = MAX_TEXT_CHARS, owned: bool = False) -> str:
    """The UTF-8 text of `path`; `ParseError` for an unreadable, oversized or non-UTF-8 file, a
    FIFO or device (opened without blocking, never read), or a path with a NUL byte; with
    `owned`, also for a file another user could have written (`not_owned`)."""
    return decode_utf8(read_bytes(path, limit=limit, owned=owned), where=_where(path))


def read_bytes(path: Path, *, limit: int = MAX_TEXT_CHARS, owned: bool = False) -> bytes:
    """The bytes of `path`, with the checks of `read_text` but the UTF-8 one."""
    where = _where(path)
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise ParseError(f"cannot read: {exc.strerror or exc}", where) from None
    except ValueError:
        raise ParseError("cannot read: the path contains a NUL byte", where) from None
    info = os.fstat(descriptor)
    problem = "not a regular file" if not stat.S_ISREG(info.st_mode) else None
    if problem is None and owned:
        problem = not_owned(info)
    if problem is not None:
        os.close(descriptor)
        raise ParseError(f"cannot read: {problem}", where)
    with os.fdopen(descriptor, "rb") as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise ParseError(f"cannot read: {exc.strerror or exc}", where) from None
    if len(data) > limit:
        raise ParseError(f"file is larger than {limit:,} bytes", where)
    return data


def not_owned(info: os.stat_result) -> str | None:
    """Why a file is not taken as the user's own: it belongs to another user (root's files
    are the machine's, and taken), or a user other than its owner may write it (through
    its group, unless that is the user's own, `_private_group`); None when only its owner
    (the user, or root) can have written it. For a file whose content runs
    code unreviewed (a sign-in, a managed config's copy), where a link is followed to the
    file it names and that file is checked."""
    if info.st_uid not in (os.geteuid(), 0):
        return f"it belongs to another user (uid {info.st_uid})"
    mode = stat.S_IMODE(info.st_mode)
    shared = 0o002 if _private_group(info.st_gid) else 0o022
    if mode & shared:
        return f"other users may write it (mode {mode:o}): make it private with chmod go-w"
    return None


def _private_group(gid: int) -> bool:
    """Whether `gid` is the user's own group, which a group-writable file may belong to (a
    umask of 002, usual where each user has a group of their own): the user's primary group,
    named as the user, with no other member."""
    import grp
    import pwd

    try:
        user = pwd.getpwuid(os.geteuid())
        group = grp.getgrgid(gid)
    except KeyError:
        return False
    others = set(group.gr_mem) - {user.pw_name}
    return gid == user.pw_gid and group.gr_name == user.pw_name and not others


def _where(path: Path) -> str:
    return str(path).replace("\x00", "\\0")


def resolve_path(path: Path, *, where: str = "") -> Path:
    """`path.resolve()`, or `ParseError` for a path with a NUL byte or a symlink loop."""
    try:
        return path.resolve()
    except ValueError:
        raise ParseError("the path contains a NUL byte", where) from None
    except (OSError, RuntimeError) as exc:
        raise ParseError(f"cannot resolve {str(path)!r}: {exc}", where) from None


def is_regular_file(path: Path) -> bool:
    """`path.is_file()` for a path from a config file: False, never an exception, for a name
    that is too long, has a NUL byte or cannot be examined."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def is_directory(path: Path) -> bool:
    """`path.is_dir()` for a path from a config file, with `is_regular_file`'s guarantees."""
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def load_json_text(text: str | bytes, *, where: str = "") -> Any:
    """`json.loads(text)` within the bounds above."""
    if isinstance(text, bytes):
        text = decode_utf8(text, where=where)
    if len(text) > MAX_TEXT_CHARS:
        raise ParseError(f"JSON text is longer than {MAX_TEXT_CHARS:,} characters", where)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        at = f"line {exc.lineno} column {exc.colno}"
        raise ParseError(f"invalid JSON: {exc.msg} ({at})", where) from None
    except ValueError:
        raise ParseError(f"a number has more than {MAX_INT_DIGITS} digits", where) from None
    except RecursionError:
        raise ParseError(TOO_DEEP, where) from None
    if text.count("[") + text.count("{") > MAX_DEPTH:
        check_depth(value, where=where)
    return value


def read_json(path: Path) -> Any:
    """The JSON value in `path` (see `read_text` and `load_json_text`)."""
    return load_json_text(read_text(path), where=str(path))


def check_depth(value: Any, *, where: str = "", limit: int = MAX_DEPTH) -> None:
    """`ParseError` when lists/dicts in `value` nest deeper than `limit` (iterative walk)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            raise ParseError(TOO_DEEP, where)
        stack.extend((child, depth + 1) for child in children)


TOO_DEEP = f"nesting is deeper than {MAX_DEPTH} levels"


# YAML (PyYAML loads only when a YAML text is parsed; see `hookwright.config.safeyaml`) ----------


def load_yaml_text(text: str | bytes, *, where: str = "") -> Any:
    """`yaml.safe_load(text)` within the bounds above."""
    from hookwright.config.safeyaml import load_yaml_text as load

    return load(text, where=where)


def read_yaml(path: Path) -> Any:
    """The YAML value in `path` (see `read_text` and `load_yaml_text`); a text parsed before
    is read back from the user's cache (`yaml_cache`), without loading PyYAML."""
    from hookwright.config import yaml_cache
    from hookwright.config.private_files import owned_folder

    text = read_text(path)
    try:
        home = user_home()
    except RuntimeError:  # no HOME and no password entry: nothing is kept
        return load_yaml_text(text, where=str(path))
    if not owned_folder(home):  # another user's home (`sudo` keeping HOME): nothing is kept
        return load_yaml_text(text, where=str(path))
    hit, value = yaml_cache.cached(home, text)
    if hit:
        return value
    value = load_yaml_text(text, where=str(path))
    yaml_cache.remember(home, text, value)
    return value


def one_line(exc: object) -> str:
    return " ".join(str(exc).split())
