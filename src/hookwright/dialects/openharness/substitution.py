"""`${env.NAME}` and `${secrets.NAME}` placeholders in every string of a hook file.

Substitution runs on the parsed YAML before validation, as in the real project. The prefix is
case-insensitive (`/\\$\\{env\\.([A-Z0-9_]+)\\}/gi` upstream); the name is looked up exactly. An
unresolved placeholder is an error naming the field path; the hook is not loaded.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hookwright.dialects.openharness.secret_store import SecretStore

PLACEHOLDER = re.compile(r"\$\{(env|secrets)\.([A-Za-z0-9_]+)\}", re.IGNORECASE)


@dataclass(slots=True)
class Unresolved:
    path: str
    message: str


@dataclass(slots=True)
class Substitution:
    environ: Mapping[str, str]
    secrets: SecretStore
    errors: list[Unresolved] = field(default_factory=list)
    #: Secret values placed into this file's strings.
    used_secrets: set[str] = field(default_factory=set)

    def expand(self, node: Any, path: str = "") -> Any:
        if isinstance(node, str):
            return self._expand_string(node, path)
        if isinstance(node, dict):
            return {key: self.expand(value, _join(path, key)) for key, value in node.items()}
        if isinstance(node, list):
            return [self.expand(item, f"{path}[{index}]") for index, item in enumerate(node)]
        return node

    def _expand_string(self, text: str, path: str) -> str:
        def replace(match: re.Match[str]) -> str:
            kind, name = match.group(1).lower(), match.group(2)
            if kind == "env":
                value = self.environ.get(name)
                if value is None:
                    self.errors.append(
                        Unresolved(path, f"environment variable {name} is required but not set")
                    )
                    return match.group(0)
                return value
            secret = self.secrets.get(name)
            if secret is None:
                self.errors.append(
                    Unresolved(path, f"secret {name} is {self.secrets.why_missing()}")
                )
                return match.group(0)
            self.used_secrets.add(secret)
            return secret

        return PLACEHOLDER.sub(replace, text)


def _join(path: str, key: Any) -> str:
    return f"{path}.{key}" if path else str(key)
