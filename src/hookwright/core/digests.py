"""The hashes of hookwright's own records (SHA-256: the audit chain, the YAML and code
caches; SHA-1: the module names of hook files).

`hashlib` takes them from OpenSSL, and loading OpenSSL costs a process that answers one event
(the Claude Code quick client's in-process answer) about 3 % of its work, more than the few
hashes it computes. Such a process calls `prefer_builtin` first: from then on the
interpreter's own implementations are used, the same digests; every other process keeps
OpenSSL's, several times faster on an audit line of a kilobyte or more.
"""

from __future__ import annotations

from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_sha256: Callable[[bytes], Any] | None = None
_sha1: Callable[[bytes], Any] | None = None


def prefer_builtin() -> None:
    """Use the interpreter's own SHA-256 and SHA-1 from now on (where the build has them)."""
    global _sha256, _sha1
    try:
        from _sha1 import sha1  # type: ignore[import-not-found,unused-ignore]

        _sha1 = sha1
    except ImportError:  # a build without the builtin hashes: OpenSSL's, when first used
        pass
    try:
        from _sha256 import sha256  # type: ignore[import-not-found,unused-ignore]
    except ImportError:  # Python 3.12 and later
        try:
            from _sha2 import sha256  # type: ignore[import-not-found,no-redef,unused-ignore]
        except ImportError:  # a build without the builtin hashes: OpenSSL's, when first used
            return
    _sha256 = sha256


def sha256_function() -> Callable[[bytes], Any]:
    """The SHA-256 constructor to use (`hashlib.sha256` unless `prefer_builtin` was called)."""
    global _sha256
    if _sha256 is None:
        import hashlib

        _sha256 = hashlib.sha256
    return _sha256


def sha256_hex(data: bytes) -> str:
    return str(sha256_function()(data).hexdigest())


def sha1_hex(data: bytes) -> str:
    global _sha1
    if _sha1 is None:
        import hashlib

        _sha1 = hashlib.sha1
    return str(_sha1(data).hexdigest())
