"""The bubblewrap command line PicoClaw's Linux isolation builds for a hook process, and the
`isolation` config section (no sandbox is started here: a stand-in `bwrap` is on PATH)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from hookwright.dialects.picoclaw.config import ConfigFile, FileSection, merge_sections
from hookwright.dialects.picoclaw.isolation import (
    Isolation,
    IsolationError,
    Mount,
    mount_plan,
    sandbox,
)


@pytest.fixture
def fake_bwrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    folder = tmp_path / "bin"
    folder.mkdir()
    bwrap = folder / "bwrap"
    bwrap.write_text("#!/bin/sh\n")
    bwrap.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return str(bwrap)


def test_the_command_line_is_picoclaws(tmp_path: Path, fake_bwrap: str) -> None:
    root, work = tmp_path / "instance", tmp_path / "work"
    work.mkdir()
    script = tmp_path / "hook.py"
    script.write_text("")
    exposed = Mount(str(tmp_path / "work"), "/data", "ro")
    isolation = Isolation(True, (exposed,), root)
    argv, cwd, env = sandbox(
        [sys.executable, str(script), "--out=/nowhere/x"], str(work), {"A": "1"}, isolation
    )
    assert argv[:7] == [
        fake_bwrap,
        "--die-with-parent",
        "--unshare-ipc",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
    ]
    binds = [tuple(argv[i : i + 3]) for i, a in enumerate(argv) if a in ("--bind", "--ro-bind")]
    assert binds[0] == ("--bind", str(root), str(root))
    assert ("--ro-bind", "/usr", "/usr") in binds
    assert ("--ro-bind", str(work), "/data") in binds
    assert ("--ro-bind", str(script), str(script)) in binds  # an existing file argument
    assert ("--bind", str(work), str(work)) in binds  # the working directory, read-write
    assert ("--ro-bind", os.path.dirname(sys.executable), os.path.dirname(sys.executable)) in binds
    assert argv[-6:] == [
        "--chdir",
        str(work),
        "--",
        sys.executable,
        str(script),
        "--out=/nowhere/x",
    ]
    assert cwd is None
    user = root / "runtime-user-env"
    assert env == {
        "A": "1",
        "HOME": str(user / "home"),
        "TMPDIR": str(user / "tmp"),
        "XDG_CONFIG_HOME": str(user / "config"),
        "XDG_CACHE_HOME": str(user / "cache"),
        "XDG_STATE_HOME": str(user / "state"),
    }
    assert (root / "workspace").is_dir() and (user / "tmp").is_dir()


def test_a_later_rule_replaces_the_one_for_its_target(tmp_path: Path) -> None:
    plan = mount_plan(tmp_path, [Mount("/usr/lib", "/usr", "rw")])
    usr = [rule for rule in plan if rule.target == "/usr"]
    assert usr == [Mount("/usr/lib", "/usr", "rw")]


def test_no_bwrap_no_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(IsolationError, match="bubblewrap"):
        sandbox(["/bin/true"], None, {}, Isolation(True, (), tmp_path))


def test_invalid_settings_start_nothing(tmp_path: Path, fake_bwrap: str) -> None:
    with pytest.raises(IsolationError, match="invalid"):
        sandbox(["/bin/true"], None, {}, Isolation(True, (), tmp_path, problem="bad mode"))


def section(path: Path, isolation: object) -> FileSection:
    return FileSection(ConfigFile(path, "user", None), {}, isolation)


def test_files_merge_enabled_and_rules_by_target(tmp_path: Path) -> None:
    first = {"enabled": True, "expose_paths": [{"source": "/opt/a", "mode": "ro"}]}
    second = {"expose_paths": [{"source": "/srv/b", "target": "/opt/a", "mode": "rw"}]}
    settings = merge_sections([section(tmp_path / "1", first), section(tmp_path / "2", second)])
    assert settings.isolation.enabled is True
    assert settings.isolation.expose_paths == (Mount("/srv/b", "/opt/a", "rw"),)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"enabled": True, "expose_paths": [{"source": "rel", "mode": "ro"}]}, "absolute"),
        ({"enabled": True, "expose_paths": [{"source": "/a", "mode": "rx"}]}, "mode"),
        (
            {"enabled": True, "expose_paths": [{"source": "/a", "mode": "ro"}] * 2},
            "duplicate",
        ),
    ],
)
def test_invalid_isolation_is_reported_and_fails_closed(
    tmp_path: Path, raw: object, message: str
) -> None:
    settings = merge_sections([section(tmp_path / "c.json", raw)])
    assert [d.path.split(".")[0] for d in settings.diagnostics] == ["isolation"]
    assert message in str(settings.diagnostics[0])
    assert settings.isolation.enabled and settings.isolation.problem
