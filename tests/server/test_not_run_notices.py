"""What the page is told of hooks that will not run, as the terminal says it: a hook that
failed to load is an `error:` notice naming its file and field once; a hook of a folder not
trusted stays a `warning:`."""

from __future__ import annotations

from pathlib import Path

from hookwright.runtime.models.scripted import ScriptedModel

from .conftest import ServerFactory
from .test_server import client, of_type

MISSING_MODULE = "hooks:\n  - {name: facts, event: PreToolUse, call: 'hw_no_such_guards:check'}\n"


def _notices(serve: ServerFactory, trust: bool) -> list[str]:
    model = ScriptedModel.from_turns([{"content": "ok"}])
    server = serve(model=lambda: model, trust=trust)
    with client(server) as ws:
        frames = ws.chat("hi", [])
    return [frame["text"] for frame in of_type(frames, "notice") if "facts" in frame["text"]]


def test_a_hook_that_failed_to_load_is_an_error_notice_and_an_untrusted_one_a_warning(
    serve: ServerFactory, project: Path
) -> None:
    hooks_file = project / ".hookwright" / "hooks.yaml"
    hooks_file.parent.mkdir()
    hooks_file.write_text(MISSING_MODULE)
    [failed] = _notices(serve, trust=True)
    assert failed.startswith(
        f"error: {hooks_file}: hook 'facts' (Python) not run: hooks[0].call: cannot import "
    ), failed
    assert failed.count("hooks[0]") == 1
    assert failed.endswith("; create hw_no_such_guards.py beside hooks.yaml, or install "
                           "hw_no_such_guards")  # fmt: skip
    [held_back] = _notices(serve, trust=False)
    assert held_back.startswith("warning: ") and "not run: untrusted" in held_back, held_back
