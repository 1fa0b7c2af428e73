"""Record classes made while `compiled_once` is open take their methods' code from the user's
private cache: a class made again compiles nothing and behaves as one made without the cache;
a file that is a link, open to others, in a folder open to others, or holding anything but
texts and code is passed over and everything is compiled as usual; `dataclasses` (and
`typing`, `collections`, whose named tuples are kept the same way) is left as it was when the
window closes, even when a class fails to build."""

from __future__ import annotations

import collections
import dataclasses
import marshal
import os
import stat
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest

import hookwright
from hookwright.config import code_cache


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts the cache compiled (rather than read back)."""
    texts: list[str] = []

    def counting(source: str, *args: Any, **kwargs: Any) -> Any:
        texts.append(source)
        return compile(source, *args, **kwargs)

    monkeypatch.setattr(code_cache, "compile", counting, raising=False)
    return texts


def record_class() -> type:
    return dataclasses.make_dataclass(
        "Rec", [("a", int), ("b", str, dataclasses.field(default="x"))], frozen=True, slots=True
    )


def made_in_window(home: Path) -> type:
    with code_cache.compiled_once(home):
        return record_class()


def behaves_as_made_without_the_cache(made: type) -> None:
    plain = record_class()
    assert repr(made(1)) == repr(plain(1)) == "Rec(a=1, b='x')"
    assert made(1) == made(1, "x") and made(1) != made(2)
    assert hash(made(1)) == hash(plain(1))
    with pytest.raises(dataclasses.FrozenInstanceError):
        made(1).a = 2  # type: ignore[attr-defined]


def test_a_class_made_again_compiles_nothing(tmp_path: Path, compiled: list[str]) -> None:
    behaves_as_made_without_the_cache(made_in_window(tmp_path))
    assert compiled  # the first time, its methods were compiled and kept
    entry = code_cache.cache_file(tmp_path)
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600
    assert stat.S_IMODE(entry.parent.stat().st_mode) == 0o700
    compiled.clear()
    behaves_as_made_without_the_cache(made_in_window(tmp_path))
    assert compiled == []
    assert "exec" not in vars(dataclasses)


def untrusted_link(entry: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.marshal"
    entry.rename(elsewhere)
    entry.symlink_to(elsewhere)


def open_to_others(entry: Path, tmp_path: Path) -> None:
    entry.chmod(0o644)


def folder_open_to_others(entry: Path, tmp_path: Path) -> None:
    entry.parent.chmod(0o755)


def not_texts_and_code(entry: Path, tmp_path: Path) -> None:
    entries = marshal.loads(entry.read_bytes())
    entry.write_bytes(marshal.dumps({**entries, 1: "not code"}))


def not_marshal(entry: Path, tmp_path: Path) -> None:
    entry.write_bytes(b"\x00not marshal data")


@pytest.mark.parametrize(
    "spoil",
    [untrusted_link, open_to_others, folder_open_to_others, not_texts_and_code, not_marshal],
)
def test_a_file_that_cannot_be_trusted_is_passed_over(
    tmp_path: Path, compiled: list[str], spoil: Callable[[Path, Path], None]
) -> None:
    made_in_window(tmp_path)
    entry = code_cache.cache_file(tmp_path)
    spoil(entry, tmp_path)
    first = len(compiled)
    compiled.clear()
    behaves_as_made_without_the_cache(made_in_window(tmp_path))
    assert len(compiled) == first


def test_another_release_reads_a_file_of_its_own(
    tmp_path: Path, compiled: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The code an older release's classes needed is not read by a newer one: its file is
    another, made anew, and the older release's stays as it was."""
    made_in_window(tmp_path)
    older = code_cache.cache_file(tmp_path)
    kept = older.read_bytes()
    monkeypatch.setattr(hookwright, "__version__", "999.0")
    newer = code_cache.cache_file(tmp_path)
    assert newer != older and newer.parent == older.parent
    compiled.clear()
    behaves_as_made_without_the_cache(made_in_window(tmp_path))
    assert compiled and newer.is_file() and older.read_bytes() == kept


@pytest.mark.skipif(os.getuid() != 0, reason="giving a file to another user needs root")
def test_another_users_file_is_passed_over(tmp_path: Path, compiled: list[str]) -> None:
    made_in_window(tmp_path)
    os.chown(code_cache.cache_file(tmp_path), 1, 1)
    compiled.clear()
    made_in_window(tmp_path)
    assert compiled


def test_dataclasses_is_restored_when_a_class_fails_to_build(tmp_path: Path) -> None:
    with pytest.raises(ValueError), code_cache.compiled_once(tmp_path):
        dataclasses.make_dataclass("Bad", [("a", int, dataclasses.field(default=[]))])
    assert "exec" not in vars(dataclasses)
    behaves_as_made_without_the_cache(record_class())


def test_the_file_starts_again_when_full(
    tmp_path: Path, compiled: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    made_in_window(tmp_path)
    kept = len(marshal.loads(code_cache.cache_file(tmp_path).read_bytes()))
    monkeypatch.setattr(code_cache, "MAX_ENTRIES", kept)
    compiled.clear()
    with code_cache.compiled_once(tmp_path):
        dataclasses.make_dataclass("Other", [("c", float)], frozen=True)
    entries = marshal.loads(code_cache.cache_file(tmp_path).read_bytes())
    assert compiled and set(entries) == set(compiled)


def named_tuples_made_in_window(home: Path) -> tuple[type, type]:
    """A `typing.NamedTuple` whose fields are written as text (this module's annotations) and
    a `collections.namedtuple`, made while the window is open."""
    with code_cache.compiled_once(home):

        class Point(NamedTuple):
            x: int
            y: str | None = None

        plain = collections.namedtuple("Pair", ["first", "second"], defaults=[2])
    return Point, plain


def test_named_tuples_made_again_compile_nothing_and_behave_the_same(
    tmp_path: Path, compiled: list[str]
) -> None:
    named_tuples_made_in_window(tmp_path)
    assert {"int", "str | None"} <= set(compiled)  # the fields' texts typing compiles
    assert any(text.startswith("lambda _cls, first, second") for text in compiled)
    compiled.clear()
    typed, plain = named_tuples_made_in_window(tmp_path)
    assert compiled == []
    assert repr(typed(1, None)) == "Point(x=1, y=None)" and typed._fields == ("x", "y")
    assert typing.get_type_hints(typed) == {"x": int, "y": str | None}
    assert plain(1) == (1, 2) and plain(1, 3).second == 3
    assert typed(1) == (1, None)
    for module, name in ((dataclasses, "exec"), (collections, "eval"), (typing, "compile")):
        assert name not in vars(module)


def test_a_home_folder_that_does_not_exist_is_not_made(tmp_path: Path) -> None:
    """Nor is a cache made in another user's home (`sudo` keeping `HOME`): see below."""
    home = tmp_path / "gone"
    behaves_as_made_without_the_cache(made_in_window(home))
    assert not home.exists() and list(tmp_path.iterdir()) == []
    behaves_as_made_without_the_cache(made_in_window(tmp_path))
    assert code_cache.cache_file(tmp_path).is_file()  # an existing home gets its cache


@pytest.mark.skipif(os.getuid() != 0, reason="giving a folder to another user needs root")
def test_another_users_home_gets_no_cache(tmp_path: Path) -> None:
    home = tmp_path / "theirs"
    home.mkdir()
    os.chown(home, 1, 1)
    behaves_as_made_without_the_cache(made_in_window(home))
    assert list(home.iterdir()) == []
