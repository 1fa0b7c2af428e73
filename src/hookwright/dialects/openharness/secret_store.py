"""Where `${secrets.NAME}` values come from.

The real project never implemented `${secrets.NAME}` (it appears only in old docs). hookwright
resolves it in this order:

1. the environment variable `NAME`;
2. the user-level secrets file `~/.openharness/secrets.yaml`, or `~/.openharness/secrets.json`
   when there is no YAML file: a mapping of secret names to string values. The file must be
   readable by its owner only (mode 0600 or stricter); otherwise it is not read at all and an
   error names it.

The caller must register every value it uses for redaction (logs, diagnostics, the audit).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

from hookwright.config.loading import Diagnostic
from hookwright.config.safeparse import ParseError, load_json_text, load_yaml_text, read_text

SECRETS_DIR = ".openharness"
SECRETS_FILES = ("secrets.yaml", "secrets.json")


class SecretStore:
    """Resolves secret names for one load; the secrets file is read at most once."""

    def __init__(self, home: Path, environ: Mapping[str, str]) -> None:
        self.home = home
        self.environ = environ
        self.diagnostics: list[Diagnostic] = []
        self._file_values: dict[str, str] | None = None
        self._file_problem: str | None = None

    @property
    def path(self) -> Path | None:
        """The secrets file in use, if any."""
        for name in SECRETS_FILES:
            candidate = self.home / SECRETS_DIR / name
            if candidate.is_file():
                return candidate
        return None

    def get(self, name: str) -> str | None:
        value = self.environ.get(name)
        if value is None:
            value = self._from_file().get(name)
        return value

    def why_missing(self) -> str:
        """Where a missing secret was looked for, for the error message."""
        path = self.path
        if path is None:
            return f"not in the environment and no {self.home / SECRETS_DIR / SECRETS_FILES[0]}"
        if self._file_problem is not None:
            return f"not in the environment, and {path} is unusable: {self._file_problem}"
        return f"not in the environment nor in {path}"

    def _from_file(self) -> dict[str, str]:
        if self._file_values is None:
            self._file_values = self._read()
        return self._file_values

    def _problem(self, path: Path, field: str, message: str) -> dict[str, str]:
        self._file_problem = message
        self.diagnostics.append(Diagnostic(str(path), field, message))
        return {}

    def _read(self) -> dict[str, str]:
        path = self.path
        if path is None:
            return {}
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except OSError as exc:
            return self._problem(path, "", f"cannot stat: {exc.strerror}")
        if mode & 0o077:
            return self._problem(
                path, "", f"mode {mode:04o} lets others read it; it must be 0600 (chmod 600)"
            )
        try:
            text = read_text(path)
            data = load_json_text(text) if path.suffix == ".json" else load_yaml_text(text)
        except ParseError:
            # The parser's message may quote file content, i.e. a secret: say only that it failed.
            return self._problem(path, "", "cannot read or parse it")
        if data is None:
            return {}
        if not isinstance(data, dict):
            return self._problem(path, "", "must be a mapping of secret names to strings")
        values: dict[str, str] = {}
        for key, value in data.items():
            if not isinstance(value, str):
                self.diagnostics.append(
                    Diagnostic(str(path), str(key), "secret value must be a string")
                )
                continue
            values[str(key)] = value
        return values
