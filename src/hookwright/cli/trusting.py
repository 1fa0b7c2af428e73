"""`hookwright trust` and `hookwright untrust`: the folders whose own hooks may run."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from hookwright.config.trust import TrustStore
from hookwright.core.home import user_home

FolderArg = Annotated[
    Path | None,
    typer.Argument(metavar="FOLDER", hidden=True),
]


def _fail(message: str) -> typer.Exit:
    sys.stderr.write(f"hookwright: error: {' '.join(message.split())}\n")
    return typer.Exit(code=2)


def _too_broad(folder: Path) -> str | None:
    """Why trusting `folder` would trust far more than one project, or None."""
    resolved = folder.resolve()
    if resolved == Path(resolved.anchor):
        return "the root folder"
    if resolved == user_home().resolve():
        return "your home folder"
    return None


def _store_folders(store: TrustStore) -> list[str]:
    try:
        return store.folders()
    except ValueError as exc:
        raise _fail(str(exc)) from None


def trust(
    folder: FolderArg = None,
    force: Annotated[
        bool,
        typer.Option("--force", help="Trust even / or the home folder.", metavar=""),
    ] = False,
    list_only: Annotated[
        bool, typer.Option("--list", help="List the trusted folders.", metavar="")
    ] = False,
) -> None:
    """Trust FOLDER: its project hooks (and those of every folder inside it) run from now
    on. --list shows the trusted folders."""
    store = TrustStore(user_home())
    if list_only:
        for entry in _store_folders(store):
            sys.stdout.write(entry + "\n")
        return
    if folder is None:
        raise _fail("trust needs a FOLDER (or --list)")
    if not folder.is_dir():
        raise _fail(f"folder {folder} does not exist")
    broad = _too_broad(folder)
    if broad and not force:
        raise _fail(
            f"{folder.resolve()} is {broad}: trusting it runs the hooks of every project "
            "inside it; pass --force if you mean it"
        )
    _store_folders(store)
    store.trust(folder)
    sys.stdout.write(f"trusted {folder.resolve()} (recorded in {store.path})\n")


def untrust(
    folder: Annotated[Path, typer.Argument(metavar="FOLDER", hidden=True)],
) -> None:
    """Stop trusting FOLDER: its project hooks no longer run."""
    store = TrustStore(user_home())
    listed = _store_folders(store)
    if not store.untrust(folder):
        resolved = folder.resolve()
        parents = [p for p in listed if Path(p) in resolved.parents]
        why = f"; it is still trusted through {parents[0]}" if parents else ""
        raise _fail(f"{resolved} is not in the trust list{why}")
    sys.stdout.write(f"no longer trusted: {folder.resolve()}\n")
