"""Each hook system's name as its users say it (Claude Code, PicoClaw, OpenHarness, skill,
Python), for every view that names a hook: the terminal, the summary, the page, `hooks list`,
the audit viewer and the debug trace. `hookwright.host.labels` builds a hook's whole label on it;
the mapping sits here, at the bottom, so the debug trace (`monitor`) reads the same words."""

from __future__ import annotations

#: A dialect's name -> the system's name as its users say it.
SYSTEMS = {
    "claude_code": "Claude Code",
    "picoclaw": "PicoClaw",
    "openharness": "OpenHarness",
    "skill": "skill",
    "native": "Python",
    "python": "Python",
    "gemini": "Gemini CLI",
    "codex": "Codex",
}


def system_name(dialect: str) -> str:
    return SYSTEMS.get(dialect, dialect)


def authored_event(dialect_data: object) -> str | None:
    """The event in the words of the hook's author, from what its dialect records on its
    spec (a skill's timing, a PicoClaw method, an OpenHarness or Gemini CLI event); None
    where they are the canonical ones (Claude Code, Python)."""
    for field in ("timing", "event", "event_name", "method"):
        value = getattr(dialect_data, field, None)
        if isinstance(value, str) and value:
            return value
    return None


#: A dialect -> the effects its hooks' authors name otherwise, whatever the answer spelled:
#: OpenHarness's block where no word said it (exit 2); PicoClaw's actions `abort_turn`,
#: `hard_abort` and `respond` on any method, and `modify` for a rewrite. Gemini CLI's words
#: are the answer's own (`ANSWER_WORDS`); Codex's and Claude Code's are the canonical ones
#: but for their legacy PreToolUse `decision` (`ANSWER_WORDS`).
OWN_EFFECTS = {
    "openharness": {"deny": "block"},
    "picoclaw": {
        "abort": "abort_turn",
        "hard abort": "hard_abort",
        "respond": "respond",
        "rewrite input": "modify",
        "rewrite output": "modify",
    },
}

#: (dialect, the hook's own event) -> the effects its authors name otherwise where the word
#: depends on the event: a PicoClaw before_tool hook denies with its action `deny_tool`, an
#: approve_tool hook answers `"approved": false` (or true).
OWN_EVENT_EFFECTS = {
    ("picoclaw", "before_tool"): {"deny": "deny_tool"},
    ("picoclaw", "approve_tool"): {"deny": "not approved", "allow": "approved"},
}


#: A dialect -> the words its answers spell one decision in two ways, kept on the hook's
#: result as it answered (`HookResult.own_word`): Gemini CLI's top-level `decision: "deny"`
#: and `"block"` (one effect on every event); Claude Code's and Codex's legacy PreToolUse
#: `decision: "block"` (and Claude Code's `"approve"`) beside `permissionDecision`;
#: OpenHarness's `decision: "block"` and `continue: false`. PicoClaw names each decision one
#: way per method (`OWN_EVENT_EFFECTS`). A word outside these is never shown (a Python hook
#: cannot make a view say another word than its decision's).
ANSWER_WORDS = {
    "gemini": frozenset({"deny", "block"}),
    "claude_code": frozenset({"block", "approve"}),
    "codex": frozenset({"block"}),
    "openharness": frozenset({"block", "continue: false"}),
}
#: The effects that are a decision, the ones an answer's own word names.
DECISIONS = frozenset({"allow", "deny", "ask", "defer", "block"})


def own_effect(
    effect: str, dialect: str | None, event: str | None = None, word: str | None = None
) -> str | None:
    """`effect` in the words of the hook's system: the `word` its answer spelled the
    decision in (`HookResult.own_word`), where the system has two; else the system's word at
    the hook's own `event` (its `authored_event`); None where they are the canonical ones."""
    if word is not None and effect in DECISIONS and word in ANSWER_WORDS.get(dialect or "", ()):
        return word
    by_event = OWN_EVENT_EFFECTS.get((dialect or "", event or ""), {})
    return by_event.get(effect) or OWN_EFFECTS.get(dialect or "", {}).get(effect)


def effect_words(
    effect: str, dialect: str | None, event: str | None = None, word: str | None = None
) -> str:
    """``block (deny)``, ``deny_tool (deny)``, ``abort_turn (abort)``: the system's own word
    first, the canonical one beside it where they differ, as events are said
    (`hookwright.host.labels.event_words`); `event` is the hook's own event, where the word
    depends on it (PicoClaw); `word` the one its answer used, where its system has two
    (`own_effect`). What the terminal, `--explain`, the debug trace, the page and
    `audit --summary` say as a hook answers; `done_words` says it once done."""
    own = own_effect(effect, dialect, event, word)
    return f"{own} ({effect})" if own and own != effect else effect


#: A decision (and an answer that ends or replaces an action: a PicoClaw abort or respond)
#: -> the word for it done (the audit viewer, the run summary).
DONE = {
    "deny": "denied",
    "block": "blocked",
    "allow": "allowed",
    "ask": "asked about",
    "respond": "answered",
    "abort": "aborted",
    "hard abort": "aborted, rolled back",
}
#: A system's own word for a decision -> its word done, where it names a state ("not
#: approved") or a canonical decision under another name (`block`, `deny`); a word that names
#: an action (PicoClaw `deny_tool`, `abort_turn`, `respond`) is kept as it is.
OWN_DONE = {"block": "blocked", "deny": "denied", "approve": "approved"}


def done_words(
    effect: str, dialect: str | None, event: str | None = None, word: str | None = None
) -> str | None:
    """``blocked (denied)``, ``deny_tool (denied)``, ``respond (answered)``: a decision done,
    in the system's own word first as `effect_words` says it; None for an effect that is not
    a decision."""
    if effect not in DONE:
        return None
    own = own_effect(effect, dialect, event, word)
    done = OWN_DONE.get(own or "", own)
    return f"{done} ({DONE[effect]})" if own and done != DONE[effect] else DONE[effect]


def event_words(canonical: str, own: str | None) -> str:
    """``after_tool_call (PostToolBatch)``: the system's own name first when it differs."""
    return f"{own} ({canonical})" if own and own != canonical else canonical


#: A dialect -> its own name of each canonical event it names one way only (the audit viewer
#: says a record's event in them; a record keeps the canonical event alone). Gemini CLI's
#: two model-call events and a skill's two agent-step timings share a canonical event: left
#: out, said canonically.
OWN_EVENTS: dict[str, dict[str, str]] = {
    "picoclaw": {
        "PreModelCall": "before_llm",
        "PostModelCall": "after_llm",
        "PreToolUse": "before_tool",
        "PostToolUse": "after_tool",
        "PermissionRequest": "approve_tool",
    },
    "openharness": {
        "PreContextBuild": "before_context_build",
        "PostContextBuild": "after_context_build",
        "PreModelCall": "before_model_call",
        "PostModelCall": "after_model_call",
        "PreToolUse": "before_tool_dispatch",
        "PostToolUse": "after_tool_dispatch",
        "Stop": "run_completed",
        "StopFailure": "run_failed",
        "PreCompact": "before_context_compact",
        "PostCompact": "after_context_compact",
    },
    "gemini": {
        "UserPromptSubmit": "BeforeAgent",
        "PostModelCall": "AfterModel",
        "PreToolUse": "BeforeTool",
        "PostToolUse": "AfterTool",
        "Stop": "AfterAgent",
        "PreCompact": "PreCompress",
    },
    "skill": {
        "UserPromptSubmit": "after_user_input",
        "PrePlanning": "before_planning",
        "PostToolBatch": "after_tool_call",
    },
}


def recorded_own_event(event: str, dialect: str | None) -> str | None:
    """A record's canonical `event` in its `dialect`'s own name (``before_tool`` for a
    PicoClaw PreToolUse), where the dialect names it one way; else None."""
    return OWN_EVENTS.get(dialect or "", {}).get(event)


def recorded_event_words(event: str, dialect: str | None) -> str:
    """A record's canonical `event` with its `dialect`'s own name for it first
    (``before_tool_dispatch (PreToolUse)``), where the dialect names it one way."""
    return event_words(event, recorded_own_event(event, dialect))
