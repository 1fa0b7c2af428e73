"""Codex's macOS managed preferences: the ``com.openai.codex`` values an MDM profile forces.

Codex CLI 0.171.0 reads two keys of the domain, each a base64 string of TOML
(``codex-rs/config/src/loader/macos.rs``): ``config_toml_base64``, a config layer above every
other (its ``[hooks]`` are managed hooks, named ``/<legacy-managed-config.toml-mdm>/
managed_config.toml``), and ``requirements_toml_base64``, the requirements layer above
``requirements.toml`` (its ``[hooks]`` are appended to the file's, its switches win). A value
that is not base64 of UTF-8 TOML stops Codex from starting; hookwright reports it in one line
naming the file and the key and reads nothing of that key. The files are those macOS keeps
forced values in (`managed_paths.codex_managed_preferences`), the first holding a key winning.
"""

from __future__ import annotations

import base64
import binascii
import plistlib
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from hookwright.config.loading import Diagnostic
from hookwright.config.safeparse import MAX_TEXT_CHARS, ParseError, decode_utf8, read_bytes

DOMAIN: Final = "com.openai.codex"
CONFIG_KEY: Final = "config_toml_base64"
REQUIREMENTS_KEY: Final = "requirements_toml_base64"
#: The paths Codex names the two layers by (its hooks' Stop run ids).
CONFIG_SOURCE: Final = Path("/<legacy-managed-config.toml-mdm>/managed_config.toml")
REQUIREMENTS_SOURCE: Final = Path(f"/<mdm:{DOMAIN}:{REQUIREMENTS_KEY}>/requirements.toml")


@dataclass(frozen=True, slots=True)
class Preference:
    """One key's TOML, and the preference file it was read from."""

    key: str
    file: Path
    toml: Mapping[str, Any]


def read_preferences(files: Sequence[Path], diagnostics: list[Diagnostic]) -> dict[str, Preference]:
    """Each key set in `files` (the first file holding it wins), decoded and parsed."""
    found: dict[str, Preference] = {}
    for file in files:
        values = _plist(file, diagnostics)
        for key in (CONFIG_KEY, REQUIREMENTS_KEY):
            if key in values and key not in found:
                parsed = _decoded(file, key, values[key], diagnostics)
                found[key] = Preference(key, file, parsed or {})
    return found


def _plist(file: Path, diagnostics: list[Diagnostic]) -> Mapping[str, Any]:
    if not file.exists():
        return {}
    try:
        values = plistlib.loads(read_bytes(file))
    except ParseError as exc:
        diagnostics.append(Diagnostic(str(file), "", exc.reason))
        return {}
    except (plistlib.InvalidFileException, ValueError, OverflowError) as exc:
        diagnostics.append(Diagnostic(str(file), "", f"not a property list: {exc}"))
        return {}
    if not isinstance(values, dict):
        diagnostics.append(Diagnostic(str(file), "", "must be a dictionary of preferences"))
        return {}
    return values


def _decoded(
    file: Path, key: str, value: Any, diagnostics: list[Diagnostic]
) -> Mapping[str, Any] | None:
    """The TOML `value` encodes; None, with one error line, when Codex would not start."""
    problem = "must be a string of base64"
    if isinstance(value, str) and len(value) <= MAX_TEXT_CHARS:
        try:
            text = decode_utf8(base64.b64decode(value.strip(), validate=True))
            return tomllib.loads(text)
        except ParseError as exc:
            problem = f"the decoded value is {exc.reason}"
        except (binascii.Error, ValueError, RecursionError) as exc:
            problem = _why(exc)
    message = f"{problem}; Codex CLI does not start with it, and hookwright reads nothing of it"
    diagnostics.append(Diagnostic(str(file), key, message))
    return None


def _why(exc: Exception) -> str:
    if isinstance(exc, tomllib.TOMLDecodeError | RecursionError):
        return f"the decoded value is not valid TOML: {exc}"
    return f"not valid base64: {exc}"
