"""Folder trust: a repository's own code never runs until its folder is trusted.

Trusted folders are kept in `~/.hookwright/trust.json` (`{"trusted": ["/abs/dir", ...]}`, 0600); a
folder is trusted when it or one of its parents is listed. `TrustPolicy` is what loading asks:
the stored folders, the folders trusted for this run only, or everything (`--trust`, and
`hookwright hooks test`, which exists to run the hooks it is pointed at).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from hookwright.config.private_files import write_private
from hookwright.config.safeparse import ParseError, read_json

#: The warning for a setting of an untrusted folder that would change other hooks.
NOT_APPLIED = "not applied: folder not trusted"


class TrustStore:
    def __init__(self, home: Path) -> None:
        self.path = home / ".hookwright" / "trust.json"

    def folders(self) -> list[str]:
        """The trusted folders as stored; raises ValueError when the file is unreadable."""
        if not self.path.exists():
            return []
        try:
            data = read_json(self.path)
        except ParseError as exc:
            raise ValueError(f"{self.path}: cannot read trust list: {exc.reason}") from None
        trusted = data.get("trusted") if isinstance(data, dict) else None
        if not isinstance(trusted, list):
            raise ValueError(f'{self.path}: expected {{"trusted": [folders]}}')
        return [str(item) for item in trusted]

    def trust(self, folder: Path) -> None:
        entries = self.folders()
        resolved = str(folder.resolve())
        if resolved not in entries:
            entries.append(resolved)
        self._save(entries)

    def untrust(self, folder: Path) -> bool:
        """Forget `folder`; False when it was not listed itself (a trusted parent still
        trusts it)."""
        entries = self.folders()
        resolved = str(folder.resolve())
        if resolved not in entries:
            return False
        self._save([entry for entry in entries if entry != resolved])
        return True

    def _save(self, entries: list[str]) -> None:
        text = json.dumps({"trusted": sorted(entries)}, indent=2) + "\n"
        write_private(self.path, text.encode("utf-8"))

    def how_to_trust(self, folder: Path) -> str:
        return f"run again with --trust, or trust the folder once with: hookwright trust {folder}"


def folder_to_trust(roots: Iterable[Path | None], project: Path) -> Path:
    """The one folder whose trust covers every root in `roots` at or above `project` (a
    dialect may read config up to the repository root); `project` when there is none."""
    project = project.resolve()
    above = {
        root.resolve()
        for root in roots
        if root is not None and (root.resolve() == project or root.resolve() in project.parents)
    }
    return min(above, key=lambda folder: len(folder.parts), default=project)


@dataclass(frozen=True, slots=True)
class TrustPolicy:
    """Which folders' own code may run. A hook whose trust root is None (user-level, managed,
    registered by the host's Python code, or a config file named on the command line) needs
    no trust; any other runs only when its root is, or lies inside, a trusted folder."""

    folders: frozenset[Path] = frozenset()
    everything: bool = False

    @classmethod
    def load(
        cls, home: Path, *, everything: bool = False, folders: Iterable[Path] = ()
    ) -> TrustPolicy:
        """The folders of `home`'s trust store plus `folders`; raises ValueError when the store
        cannot be read."""
        stored = [] if everything else [Path(entry) for entry in TrustStore(home).folders()]
        return cls(frozenset(p.resolve() for p in (*stored, *folders)), everything)

    def trusts(self, root: Path | None) -> bool:
        if root is None or self.everything:
            return True
        target = root.resolve()
        return any(target == base or base in target.parents for base in self.folders)

    def with_folder(self, folder: Path) -> TrustPolicy:
        return TrustPolicy(self.folders | {folder.resolve()}, self.everything)
