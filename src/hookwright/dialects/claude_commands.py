"""The names of Claude Code's own commands and bundled skills, per version, by what the model's
``Skill`` call of each name gets (measured with 2.1.240 and 2.1.332: a call of every command
name and alias of the version, with no skill of that name in the project):

* `UI` and `CLI`: refused before any hook as ``NAME is a UI command, not a skill. Ask the user to
  run /NAME themselves — it cannot be invoked via the Skill tool.`` (``built-in CLI`` for the
  second);
* `RESERVED`: a bundled skill whose frontmatter sets ``disable-model-invocation``, refused in
  those words;
* `BUNDLED`: a skill that ships with Claude Code and runs (hookwright has none of them: the
  call reads as an unknown skill, see docs/claude-code.md).

An unknown name is refused before any hook as ``Unknown skill: NAME``, followed by ``Did you
mean OTHER?`` when a skill, command or alias of the session (the project's and the user's, then
these) is within two edits of it (insertions, deletions, substitutions and swaps of neighbours,
and at most two characters longer or shorter); the first of the closest wins.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

UI: Final = "UI"
CLI: Final = "built-in CLI"
RESERVED: Final = "reserved"
BUNDLED: Final = "bundled"


@dataclass(frozen=True, slots=True)
class BuiltinCommand:
    """One of a Claude Code version's own commands or bundled skills, by `name`, and its
    `kind` (`UI`, `CLI`, `RESERVED`, `BUNDLED`): what the Skill tool's refusal says of it."""

    name: str
    kind: str


def _table(listed: str, kinds: dict[str, str]) -> tuple[BuiltinCommand, ...]:
    """Each name of `kinds` (each kind's names, space-separated) in the order the version offers
    them: `listed` (its bundled skills, in the order of its skill listing) first, then the rest
    alphabetically, ``/background``'s last (measured: ``cg`` reads ``Did you mean cd?`` where
    ``bg`` is as close)."""
    kind_of = {name: kind for kind, names in kinds.items() for name in names.split()}
    late = ("background", "bg")
    rest = sorted(name for name in kind_of if name not in listed.split() and name not in late)
    order = [*listed.split(), *rest, *late]
    return tuple(BuiltinCommand(name, kind_of[name]) for name in order if name in kind_of)


_UI_COMMON: Final = (
    "add-dir allowed-tools android background bashes bg branch btw bug cd color config copy "
    "cost diff effort exit export fast feedback focus fork goal help hooks ide ios login logout "
    "marketplace mcp memory mobile model name passes permissions plan plugin plugins powerup "
    "pro-trial-expired quit release-notes rename resume scroll-speed settings setup-bedrock "
    "setup-vertex share skills stats status subtask tasks terminal-setup theme tui usage "
    "workflows"
)
_CLI_2_1_240: Final = (
    "agents auto-mode-setup autocompact checkpoint clear compact context heapdump keybindings "
    "new recap reload-plugins reload-skills reset rewind stickers undo"
)
_RESERVED_2_1_332: Final = (
    "__remote-workflow batch checkup debug deep-research doctor insights run-skill-generator "
    "statusline team-onboarding verify workflow-launch-exec"
)
_BUNDLED_2_1_240: Final = (
    "claude-api dataviz fewer-permission-prompts init loop run security-review simplify "
    "update-config"
)

COMMANDS_2_1_240: Final = _table(
    "deep-research dataviz update-config verify debug code-review simplify batch "
    "fewer-permission-prompts doctor loop claude-api run run-skill-generator",
    {
        UI: f"{_UI_COMMON} continue",
        CLI: _CLI_2_1_240,
        RESERVED: f"{_RESERVED_2_1_332} code-review review",
        BUNDLED: _BUNDLED_2_1_240,
    },
)
COMMANDS_2_1_332: Final = _table(
    "deep-research dataviz update-config verify debug code-review simplify batch "
    "fewer-permission-prompts doctor loop claude-api workflow-authoring run "
    "run-skill-generator plugin-authoring",
    {
        UI: _UI_COMMON,
        CLI: f"{_CLI_2_1_240} list-agents output-style peers radio",
        RESERVED: _RESERVED_2_1_332,
        BUNDLED: f"{_BUNDLED_2_1_240} code-review plugin-authoring review workflow-authoring",
    },
)

#: Each table, by the version that has it (`ClaudeCodeProfile.tables`).
COMMANDS: Final = {"2.1.240": COMMANDS_2_1_240, "2.1.332": COMMANDS_2_1_332}


def not_a_skill(name: str, kind: str) -> str:
    """What the ``Skill`` call of the command `name` of the `UI` or `CLI` kind reads."""
    return (
        f"{name} is a {kind} command, not a skill. Ask the user to run /{name} themselves "
        "\u2014 it cannot be invoked via the Skill tool."
    )


def reserved(name: str) -> str:
    """What the ``Skill`` call of a skill with ``disable-model-invocation: true`` reads."""
    return (
        f"Skill {name} cannot be used with Skill tool due to disable-model-invocation. Ask "
        f"the user to run /{name} themselves \u2014 it cannot be invoked via the Skill tool. "
        "Do not replicate this skill's workflow by other means \u2014 it is reserved for "
        "explicit user invocation."
    )


def closest(name: str, candidates: list[str], most: int = 2) -> str | None:
    """The first of `candidates` fewest edits from `name`, if at most `most` edits away."""
    best, fewest = None, most + 1
    for candidate in candidates:
        if abs(len(candidate) - len(name)) > most:
            continue
        edits = _edits(name, candidate)
        if edits < fewest:
            best, fewest = candidate, edits
    return best


def _edits(a: str, b: str) -> int:
    """Insertions, deletions, substitutions and swaps of neighbours from `a` to `b`."""
    rows = [list(range(len(b) + 1))]
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            row[j] = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]
