"""A pinned agent CLI from npm, installed into a temporary folder for one suite's run.

Each suite names its CLI (`NpmCli`) and takes `--<binary> PATH` for one already installed;
either way the binary must start and print its pinned version, else the suite raises
`Unavailable` and prints SKIP. Nothing of the CLI is kept once the suite ends.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

INSTALL_TIMEOUT = 900
VERSION_TIMEOUT = 60


class Unavailable(Exception):
    """The CLI cannot be installed or started here."""


@dataclass(frozen=True, slots=True)
class NpmCli:
    """`package@version` from npm, whose `binary --version` prints `version`: anywhere in the
    output, or as its first word when `first_word` (so `2.1.24` is not `2.1.240`)."""

    package: str
    version: str
    binary: str
    first_word: bool = False

    @property
    def spec(self) -> str:
        return f"{self.package}@{self.version}"

    def prints_version(self, printed: str) -> bool:
        if self.first_word:
            return printed.split(" ", 1)[0].strip() == self.version
        return self.version in printed


@contextmanager
def installed(cli: NpmCli, given: str | None) -> Iterator[Path]:
    """The CLI's binary: `given`, else installed from npm into a folder removed afterwards."""
    if given:
        yield _checked(cli, Path(given))
        return
    npm = shutil.which("npm")
    if npm is None:
        raise Unavailable("npm is not on PATH")
    with tempfile.TemporaryDirectory(prefix=f"hw-npm-{cli.binary}-") as folder:
        command = [npm, "install", "--prefix", folder, "--no-audit", "--no-fund", cli.spec]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
        except subprocess.TimeoutExpired as exc:
            raise Unavailable(f"npm install {cli.spec} timed out") from exc
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise Unavailable(f"npm install {cli.spec} failed: {last}")
        yield _checked(cli, Path(folder) / "node_modules" / ".bin" / cli.binary)


def _checked(cli: NpmCli, binary: Path) -> Path:
    """`binary`, once it started and printed the pinned version."""
    try:
        done = subprocess.run(
            [str(binary), "--version"], capture_output=True, text=True, timeout=VERSION_TIMEOUT
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise Unavailable(f"{binary} does not start: {exc}") from exc
    if done.returncode != 0 or not cli.prints_version(done.stdout):
        raise Unavailable(f"{binary} --version printed {done.stdout.strip()!r}")
    return binary
