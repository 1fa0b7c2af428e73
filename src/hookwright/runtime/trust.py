"""Folder trust: a repository's own hooks never run until its folder is trusted.

Trusted folders are kept in `~/.hookwright/trust.json` (`{"trusted": ["/abs/dir", ...]}`); a
folder is trusted when it or one of its parents is listed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path


class TrustStore:
    def __init__(self, home: Path) -> None:
        self.path = home / ".hookwright" / "trust.json"

    def _load(self) -> list[str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, json.JSONDecodeError) as exc:
            raise ValueError(f"{self.path}: cannot read trust list: {exc}") from None
        trusted = data.get("trusted") if isinstance(data, dict) else None
        if not isinstance(trusted, list):
            raise ValueError(f'{self.path}: expected {{"trusted": [folders]}}')
        return [str(item) for item in trusted]

    def is_trusted(self, folder: Path) -> bool:
        target = folder.resolve()
        for entry in self._load():
            base = Path(entry)
            if target == base or base in target.parents:
                return True
        return False

    def trust(self, folder: Path) -> None:
        entries = self._load()
        resolved = str(folder.resolve())
        if resolved not in entries:
            entries.append(resolved)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"trusted": sorted(entries)}, indent=2) + "\n")
        os.replace(tmp, self.path)

    def how_to_trust(self, folder: Path) -> str:
        return f"run again with --trust, or trust the folder once with: hookwright trust {folder}"
