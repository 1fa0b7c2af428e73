"""The SKILL.md with frontmatter hooks that the skill cases and the reference agent's skill
tests share: its hooks log as ``skill-pre`` (PreToolUse on Bash), ``skill-post-once``
(PostToolUse on Bash, a ``once`` hook) and, where asked, ``skill-stop`` (Stop)."""

from __future__ import annotations

GREETING = "Greeting $ARGUMENTS.\n"


def scoped_skill(
    program: str,
    *,
    description: str = "Greets with hooks",
    stop: bool = False,
    body: str = GREETING,
) -> str:
    """The skill's text, each hook running ``python3 <program> <label>``; `body` follows the
    frontmatter."""
    stop_hook = (
        "  Stop:\n"
        "    - hooks:\n"
        "        - type: command\n"
        f"          command: python3 {program} skill-stop\n"
        if stop
        else ""
    )
    return (
        f"---\ndescription: {description}\n"
        "hooks:\n"
        "  PreToolUse:\n"
        "    - matcher: Bash\n"
        "      hooks:\n"
        "        - type: command\n"
        f"          command: python3 {program} skill-pre\n"
        "  PostToolUse:\n"
        "    - matcher: Bash\n"
        "      hooks:\n"
        "        - type: command\n"
        f"          command: python3 {program} skill-post-once\n"
        "          once: true\n"
        f"{stop_hook}---\n{body}"
    )
