"""The user's home folder, as every part of hookwright reads it: the trust store, the audit, the
caches, the daemon's runtime files and each system's user-level settings live under it.

``Path.home()`` returns ``$HOME`` as it is, so a relative ``HOME`` (``HOME=env/home``, from a
script or a service file) would put all of that under the current folder: the project's folder
for a hook, where a hostile repository could plant the trust store that decides whether its own
hooks run. A ``HOME`` that is not an absolute path is therefore not used: the account's home
folder from the password database is, as when ``HOME`` is unset."""

from __future__ import annotations

import os
from pathlib import Path


def user_home() -> Path:
    """``$HOME`` when it is an absolute path, else the account's home folder; RuntimeError when
    there is neither (as ``Path.home()`` raises)."""
    home = os.environ.get("HOME", "")
    if os.path.isabs(home):
        return Path(home)
    import pwd

    try:
        entry = pwd.getpwuid(os.getuid())
    except KeyError:
        raise RuntimeError(
            f"HOME is not an absolute path ({home!r}) and uid {os.getuid()} has no password entry"
        ) from None
    if not os.path.isabs(entry.pw_dir):
        raise RuntimeError(
            f"HOME is not an absolute path ({home!r}) and neither is the password entry's"
        )
    return Path(entry.pw_dir)


def home_text() -> str:
    """`user_home()` as text, for expanding ``~`` in a rule or a path; ``~`` itself when there
    is no home folder (as ``os.path.expanduser`` leaves it)."""
    try:
        return str(user_home())
    except RuntimeError:
        return "~"
