"""The Codex conformance cases: what a one-shot `codex exec` run reaches of the hook contract.

Each hook logs its stdin and answers as its `Action` says; text a hook gives carries `MARK`.
Commands print without a trailing newline: Codex hands hooks the output as written, hookwright
its Bash tool's trimmed output (a documented difference).
"""

from __future__ import annotations

import json
from typing import Any

from conformance.codex.harness import CodexCase, CodexHook
from conformance.codex.layers import CaseLayer
from conformance.codex.view import SPAWN_CALL
from conformance.fake_responses import Reply, Shell, Spawn, Wait
from conformance.harness import HOOK_PROGRAM, Action

H = CodexHook
ASYNC = {"async": True}
EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd")


def one_call(command: str) -> list[Reply]:
    return [Reply(calls=[Shell("call_a", command)]), Reply("done")]


def specific(event: str, **fields: Any) -> Action:
    return Action.json({"hookSpecificOutput": {"hookEventName": event, **fields}})


def observers(*events: str) -> list[CodexHook]:
    return [H(event, f"log-{event}", matcher="*" if "Tool" in event else None) for event in events]


def _logged(label: str, then: str) -> str:
    """A shell hook that logs its stdin through the hook program, then runs `then`."""
    return f'in=$(cat); printf %s "$in" | python3 {HOOK_PROGRAM} {label}; {then}'


STOP_ONCE = _logged(
    "stop-once",
    'case "$in" in *\'"stop_hook_active":true\'*) exit 0;; esac; '
    'echo "MARK keep going" >&2; exit 2',
)
SLOW = _logged("slow", "sleep 5")
SUBAGENT_PROMPT_BLOCK = _logged(
    "block-subagent-prompt",
    'case "$in" in *\'"prompt":"print sub"\'*) echo "MARK not this prompt" >&2; exit 2;; esac',
)
SUBAGENT_STOP_ONCE = _logged(
    "subagent-stop-once",
    'case "$in" in *\'"stop_hook_active":true\'*) exit 0;; esac; '
    'echo "MARK keep going" >&2; exit 2',
)


def layered(event: str, *layers: CaseLayer) -> list[CodexHook]:
    """One hook per layer adding `MARK <layer>` context to `event`, each finishing 0.3 s after
    the one before (both agents deliver it in the configured order whatever the finish order:
    case `context_in_configured_order`)."""
    return [
        H(event, layer, _context_after(event, layer, 0.3 * place), layer=layer)
        for place, layer in enumerate(layers)
    ]


def _context_after(event: str, layer: str, delay: float) -> Action:
    answer = specific(event, additionalContext=f"MARK {layer}")
    return Action(answer.stdout, delay=delay)


def _finishing_first_last(event: str) -> list[CodexHook]:
    """Two hooks of `event` giving context, the first configured finishing a second later."""
    matcher = "Bash" if "Tool" in event else None
    return [
        H(event, f"{event}-slow", _context_after(event, f"{event} first", 1.0), matcher),
        H(event, f"{event}-quick", _context_after(event, f"{event} second", 0.0), matcher),
    ]


EVERY_LAYER: tuple[CaseLayer, ...] = (
    "requirements",
    "system",
    "user",
    "project",
    "legacy",
    "plugin",
)
ADMIN_DENY = H(
    "PreToolUse", "admin", Action(stderr="MARK not allowed\n", exit=2), "Bash", layer="requirements"
)
PROJECT_REWRITE = H(
    "PreToolUse",
    "rewrite",
    specific("PreToolUse", permissionDecision="allow", updatedInput={"command": "true"}),
)
HOOKS_OFF = "[features]\nhooks = false\n"

LAYER_CASES: list[CodexCase] = [
    CodexCase(
        "subfolder_of_a_repository",
        "make a file",
        one_call("printf x > made.txt"),
        [
            *layered("UserPromptSubmit", "user", "project", "subfolder"),
            H(
                "PreToolUse",
                "sub",
                Action(stderr="MARK sub says no\n", exit=2),
                "Bash",
                layer="subfolder",
            ),
        ],
    ),
    CodexCase(
        "every_layer_in_order", "say hi", [Reply("hi")], layered("UserPromptSubmit", *EVERY_LAYER)
    ),
    CodexCase(
        "allow_managed_hooks_only",
        "say hi",
        [Reply("hi")],
        layered("UserPromptSubmit", *EVERY_LAYER),
        toml={"requirements": "allow_managed_hooks_only = true\n"},
    ),
    CodexCase(
        "managed_deny_beats_a_project_rewrite",
        "make a file",
        one_call("printf x > made.txt"),
        [ADMIN_DENY, PROJECT_REWRITE],
    ),
    CodexCase(
        "pinned_hooks_feature",
        "make a file",
        one_call("printf x > made.txt"),
        [ADMIN_DENY],
        toml={"project": HOOKS_OFF, "requirements": "[features]\nhooks = true\n\n"},
    ),
    CodexCase(
        "project_turns_hooks_off",
        "make a file",
        one_call("printf x > made.txt"),
        [ADMIN_DENY, *observers("PostToolUse")],
        toml={"project": HOOKS_OFF},
        differs=(
            "a project's [features] hooks = false turns off managed hooks too in Codex, "
            "not in hookwright"
        ),
    ),
    CodexCase(
        "linked_worktree",
        "make a file",
        one_call("printf x > made.txt"),
        [
            *layered("UserPromptSubmit", "project", "worktree"),
            H("PreToolUse", "main", Action(stderr="MARK main says no\n", exit=2), "Bash"),
            H("PreToolUse", "own", Action(stderr="MARK own says no\n", exit=2), layer="worktree"),
        ],
    ),
    CodexCase(
        "plugin_hook_unreviewed",
        "make a file",
        one_call("printf x > made.txt"),
        [
            H(
                "PreToolUse",
                "plugin",
                Action(stderr="MARK plugin\n", exit=2),
                layer="plugin",
                reviewed=False,
            ),
            H("PreToolUse", "user", layer="user"),
        ],
    ),
]

CASES: list[CodexCase] = [
    CodexCase("allow", "make a file", one_call("printf hi > out.txt"), observers(*EVENTS)),
    CodexCase(
        "block_exit2",
        "make a file",
        one_call("printf x > made.txt"),
        [H("PreToolUse", "guard", Action(stderr="MARK not here\n", exit=2), matcher="Bash")],
    ),
    CodexCase(
        "exit2_without_stderr",
        "make a file",
        one_call("printf x > made.txt"),
        [H("PreToolUse", "guard", Action(exit=2), matcher="Bash")],
    ),
    CodexCase(
        "deny_json",
        "make a file",
        one_call("printf x > made.txt"),
        [
            H(
                "PreToolUse",
                "guard",
                specific(
                    "PreToolUse", permissionDecision="deny", permissionDecisionReason="MARK denied"
                ),
            )
        ],
    ),
    CodexCase(
        "deny_legacy_block",
        "make a file",
        one_call("printf x > made.txt"),
        [H("PreToolUse", "guard", Action.json({"decision": "block", "reason": "MARK legacy"}))],
    ),
    CodexCase(
        "input_rewrite",
        "make a file",
        one_call("printf x > original.txt"),
        [
            H(
                "PreToolUse",
                "rewrite",
                specific(
                    "PreToolUse",
                    permissionDecision="allow",
                    updatedInput={"command": "printf y > rewritten.txt"},
                ),
            ),
            *observers("PostToolUse"),
        ],
    ),
    CodexCase(
        "plain_allow_fails_open",
        "make a file",
        one_call("printf x > made.txt"),
        [H("PreToolUse", "allow", specific("PreToolUse", permissionDecision="allow"))],
    ),
    CodexCase(
        "ask_fails_open",
        "make a file",
        one_call("printf x > made.txt"),
        [H("PreToolUse", "ask", specific("PreToolUse", permissionDecision="ask"))],
    ),
    CodexCase(
        "post_tool_context",
        "make a file",
        one_call("printf hi"),
        [H("PostToolUse", "ctx", specific("PostToolUse", additionalContext="MARK post context"))],
    ),
    CodexCase(
        "post_tool_block",
        "make a file",
        one_call("printf hi"),
        [H("PostToolUse", "lint", Action.json({"decision": "block", "reason": "MARK lint"}))],
    ),
    CodexCase(
        "pre_tool_context",
        "make a file",
        one_call("printf hi"),
        [H("PreToolUse", "ctx", specific("PreToolUse", additionalContext="MARK pre context"))],
    ),
    CodexCase(
        "pre_and_post_tool_context",
        "make a file",
        one_call("printf hi"),
        [
            H("PreToolUse", "pre", specific("PreToolUse", additionalContext="MARK pre")),
            H("PostToolUse", "post", specific("PostToolUse", additionalContext="MARK post")),
        ],
    ),
    CodexCase(
        "context_in_configured_order",
        "make a file",
        one_call("printf hi"),
        [
            *_finishing_first_last("UserPromptSubmit"),
            *_finishing_first_last("PreToolUse"),
            *_finishing_first_last("PostToolUse"),
        ],
        # Concurrent hooks log their stdin in the order they start, in either agent.
        compare=frozenset({"model", "files"}),
    ),
    CodexCase(
        "async_hooks",
        "make a file",
        # Codex starts an async hook and goes on without it: its context reaches the next
        # model request after it ends, its exit 2 blocks nothing, and it is killed if it still
        # runs when Codex exits. The call outlives both hooks, so both end before the request
        # after it (a hook ending later, as a PostToolUse one may, races that request). The
        # guard logs nothing: it starts alongside the prompt's hook, in either order. An async
        # SessionEnd hook is waited for as any other: it logs only after a second.
        one_call("sleep 2; printf x > made.txt"),
        [
            H(
                "UserPromptSubmit",
                "prompt",
                specific("UserPromptSubmit", additionalContext="MARK prompt"),
                extra=ASYNC,
            ),
            H(
                "PreToolUse",
                "deny",
                command='echo "MARK async says no" >&2; exit 2',
                matcher="Bash",
                extra=ASYNC,
            ),
            H("SessionEnd", "end", command="sleep 1; " + _logged("end", "true"), extra=ASYNC),
        ],
    ),
    CodexCase(
        "prompt_context",
        "say hi",
        [Reply("hi")],
        [
            H(
                "UserPromptSubmit",
                "ctx",
                specific("UserPromptSubmit", additionalContext="MARK prompt context"),
            )
        ],
    ),
    CodexCase(
        "prompt_plain_stdout",
        "say hi",
        [Reply("hi")],
        [H("UserPromptSubmit", "plain", Action(stdout="MARK plain context\n"))],
    ),
    CodexCase(
        "prompt_block",
        "say hi",
        [Reply("hi")],
        [
            H(
                "UserPromptSubmit",
                "gate",
                Action.json({"decision": "block", "reason": "MARK no prompts"}),
            ),
            *observers("Stop"),
        ],
    ),
    CodexCase(
        "session_start_context",
        "say hi",
        [Reply("hi")],
        [H("SessionStart", "ctx", specific("SessionStart", additionalContext="MARK session"))],
    ),
    CodexCase(
        "stop_continuation",
        "say hi",
        [Reply("first"), Reply("second")],
        [H("Stop", "stop-once", command=STOP_ONCE)],
    ),
    CodexCase(
        "matchers",
        "make a file",
        one_call("printf hi"),
        [
            H("PreToolUse", "exact", matcher="Bash"),
            H("PreToolUse", "regex", matcher="^B.*h$"),
            H("PreToolUse", "star", matcher="*"),
            H("PreToolUse", "model-name", matcher="exec_command"),
            H("PreToolUse", "edit-write", matcher="Write|Edit"),
        ],
    ),
    CodexCase(
        "timeout",
        "make a file",
        one_call("printf x > made.txt"),
        [H("PreToolUse", "slow", timeout=1, command=SLOW)],
    ),
    CodexCase(
        "invalid_json",
        "make a file",
        one_call("printf x > made.txt"),
        [H("PreToolUse", "bad", Action(stdout='{"decision": "block", "reason": "MARK'))],
    ),
    CodexCase(
        "untrusted_project",
        "make a file",
        one_call("printf x > made.txt"),
        [
            H("PreToolUse", "project", Action(stderr="MARK project says no\n", exit=2)),
            H("PreToolUse", "user", layer="user"),
            H("UserPromptSubmit", "user-prompt", layer="user"),
        ],
        trusted=False,
    ),
    CodexCase(
        "unreviewed_hook",
        "make a file",
        one_call("printf x > made.txt"),
        [
            H("PreToolUse", "unreviewed", Action(stderr="MARK blocked\n", exit=2), reviewed=False),
            H("PreToolUse", "reviewed"),
        ],
    ),
    CodexCase(
        "interrupt_mid_tool_call",
        "make a file slowly",
        one_call("sleep 30; printf x > made.txt"),
        [
            *observers("PreToolUse", "PostToolUse", "Stop", "StopFailure"),
            H("Interrupt", "interrupt", Action.json({"systemMessage": "MARK interrupted"})),
            H("Interrupt", "interrupt-default", timeout=None),
            H("SessionEnd", "session-end-default", timeout=None),
        ],
        interrupt_after="log-PreToolUse",
    ),
    CodexCase(
        "interrupt_during_session_start",
        "say hi",
        [Reply("hi")],
        [
            H("SessionStart", "session-start", Action(delay=20), timeout=30),
            *observers("UserPromptSubmit", "Stop"),
            H("Interrupt", "interrupt-default", timeout=None),
            H("SessionEnd", "session-end-default", timeout=None),
        ],
        interrupt_after="session-start",
    ),
    CodexCase(
        "stop_failure_not_fired_on_a_failed_request",
        "say hi",
        [Reply(status=400)],
        observers("UserPromptSubmit", "Stop", "StopFailure", "SessionEnd"),
    ),
]

#: The plugin's PreToolUse guard and a user hook: whether the guard runs says whether the
#: plugin counts.
PLUGIN_GUARD = [
    H("PreToolUse", "plugin", Action(stderr="MARK plugin says no\n", exit=2), layer="plugin"),
    H("PreToolUse", "user", layer="user"),
]
RESTRICTED = "[marketplaces]\nrestrict_to_allowed_sources = true\n"


def _local_marketplace(path: str) -> str:
    """The plugin's marketplace as `codex plugin marketplace add PATH` records it."""
    return f'[marketplaces.local]\nsource_type = "local"\nsource = "{path}"\n'


def _git_marketplace(url: str, ref: str) -> str:
    return f'[marketplaces.local]\nsource_type = "git"\nsource = "{url}"\nref = "{ref}"\n'


def _allowed(name: str, **fields: str) -> str:
    body = "".join(f"{key} = {json.dumps(value)}\n" for key, value in fields.items())
    return f"[marketplaces.allowed_sources.{name}]\n{body}"


def _plugin_case(name: str, toml: dict[CaseLayer, str]) -> CodexCase:
    """A case where the plugin's guard and a user hook meet one command: `toml` is what says
    whether the plugin counts."""
    return CodexCase(name, "make a file", one_call("printf x > made.txt"), PLUGIN_GUARD, toml=toml)


def _configured(name: str, path: str) -> str:
    """Marketplace `name` configured from the local folder `path`."""
    return f'[marketplaces.{name}]\nsource_type = "local"\nsource = "{path}"\n'


#: The folders where Codex keeps OpenAI's own marketplaces (``$CODEX_HOME`` and the user's
#: cache folder, under the case's folder).
BUNDLED_FOLDER = "{root}/home/.codex/.tmp/bundled-marketplaces/"
RUNTIME_FOLDER = (
    "{root}/home/.cache/codex-runtimes/codex-primary-runtime/plugins/openai-primary-runtime"
)
OPENAI_PLUGINS = "https://github.com/openai/plugins.git"


PLUGIN_CASES: list[CodexCase] = [
    _plugin_case(
        "plugin_marketplace_not_configured_restricted",
        {"requirements": RESTRICTED},
    ),
    _plugin_case(
        "plugin_marketplace_allowed_local",
        {
            "requirements": RESTRICTED + _allowed("corp", source="local", path="{root}/market"),
            "user": _local_marketplace("{root}/market"),
        },
    ),
    _plugin_case(
        "plugin_marketplace_source_not_allowed",
        {
            "requirements": RESTRICTED + _allowed("corp", source="local", path="{root}/other"),
            "user": _local_marketplace("{root}/market"),
        },
    ),
    _plugin_case(
        "plugin_marketplace_rules_without_restriction",
        {
            "requirements": _allowed("corp", source="local", path="{root}/other"),
            "user": _local_marketplace("{root}/market"),
        },
    ),
    _plugin_case(
        "plugin_marketplace_git_host_pattern",
        {
            "requirements": RESTRICTED
            + _allowed("hosts", source="host_pattern", host_pattern="^git[.]example[.]com$"),
            "user": '[marketplaces.local]\nsource_type = "git"\n'
            'source = "https://git.example.com/acme/plugins.git"\n',
        },
    ),
    _plugin_case(
        "plugin_marketplace_git_url_and_ref",
        {
            "requirements": RESTRICTED
            + _allowed("acme", source="git", url="acme/plugins", ref="v2"),
            "user": _git_marketplace("https://github.com/acme/plugins/", "v2"),
        },
    ),
    _plugin_case(
        "plugin_marketplace_git_ref_not_allowed",
        {
            "requirements": RESTRICTED
            + _allowed("acme", source="git", url="acme/plugins", ref="v2"),
            "user": _git_marketplace("https://github.com/acme/plugins/", "dev"),
        },
    ),
    _plugin_case(
        "plugin_marketplace_unreadable_rule",
        {
            "requirements": RESTRICTED
            + _allowed("corp", source="local", path="{root}/market")
            + _allowed("broken", source="local"),
            "user": _local_marketplace("{root}/market"),
        },
    ),
    _plugin_case(
        "plugins_feature_pinned_on",
        {
            "requirements": "[features]\nplugins = true\n",
            "user": "[features]\nplugins = false\n",
        },
    ),
    _plugin_case(
        "plugins_feature_off_in_requirements",
        {"requirements": "[features]\nplugins = false\n"},
    ),
    _plugin_case(
        "plugins_feature_off_by_the_user",
        {"user": "[features]\nplugins = false\n"},
    ),
]

REMOTE_PLUGINS_OFF = "[features]\nremote_plugin = false\n"


def _market_case(
    name: str,
    toml: dict[CaseLayer, str],
    marketplace: str,
    sign_in: str | None = None,
) -> CodexCase:
    """A plugin case whose plugin is installed from `marketplace`, the user signed in as
    `sign_in` says (``auth.json``)."""
    turns = one_call("printf x > made.txt")
    return CodexCase(
        name,
        "make a file",
        turns,
        PLUGIN_GUARD,
        toml=toml,
        plugin=f"guard@{marketplace}",
        sign_in=sign_in,
    )


def _eligible(name: str, marketplace: str, toml: dict[CaseLayer, str]) -> CodexCase:
    """A case about what `toml` says of `marketplace`, the user signed in so that Codex would
    load its plugins otherwise: OpenAI's curated marketplace and its remote one need a
    ChatGPT sign-in, the first with remote plugins off."""
    if marketplace not in ("openai-curated", "openai-curated-remote"):
        return _market_case(name, toml, marketplace)
    if marketplace == "openai-curated":
        toml = {**toml, "user": REMOTE_PLUGINS_OFF + toml.get("user", "")}
    return _market_case(name, toml, marketplace, "chatgpt")


RESERVED_NAMES = (
    "openai-curated",
    "openai-api-curated",
    "openai-bundled",
    "openai-bundled-alpha",
    "openai-primary-runtime",
    "openai-curated-remote",
    "workspace-directory",
    "workspace-shared-with-me",
    "workspace-shared-with-me-private",
    "workspace-shared-with-me-unlisted",
)
CURATED_RULE = RESTRICTED + _allowed("openai", source="git", url="openai/plugins")

MARKETPLACE_NAME_CASES: list[CodexCase] = [
    *(
        _eligible(
            f"reserved_name_{name.replace('-', '_')}",
            name,
            {"user": _configured(name, "{root}/market")},
        )
        for name in RESERVED_NAMES
    ),
    _market_case("remote_marketplace_not_configured", {}, "workspace-directory"),
    _market_case("curated_without_sign_in", {}, "openai-curated"),
    _market_case("curated_with_an_api_key", {}, "openai-curated", "apikey"),
    _market_case("curated_with_chatgpt", {}, "openai-curated", "chatgpt"),
    _market_case(
        "curated_with_chatgpt_remote_plugins_off",
        {"user": REMOTE_PLUGINS_OFF},
        "openai-curated",
        "chatgpt",
    ),
    _market_case(
        "curated_with_chatgpt_kept_in_the_keyring",
        {"user": 'cli_auth_credentials_store = "keyring"\n' + REMOTE_PLUGINS_OFF},
        "openai-curated",
        "chatgpt",
    ),
    _market_case(
        "curated_with_chatgpt_kept_in_the_keyring_or_the_file",
        {"user": 'cli_auth_credentials_store = "auto"\n' + REMOTE_PLUGINS_OFF},
        "openai-curated",
        "chatgpt",
    ),
    _market_case("curated_remote_without_sign_in", {}, "openai-curated-remote"),
    _market_case("curated_remote_with_chatgpt", {}, "openai-curated-remote", "chatgpt"),
    _market_case("api_curated_without_sign_in", {}, "openai-api-curated"),
    _market_case("api_curated_with_chatgpt", {}, "openai-api-curated", "chatgpt"),
    _eligible("curated_allowed_by_git_rule", "openai-curated", {"requirements": CURATED_RULE}),
    _eligible(
        "api_curated_allowed_by_host_pattern",
        "openai-api-curated",
        {
            "requirements": RESTRICTED
            + _allowed("hub", source="host_pattern", host_pattern="^github[.]com$")
        },
    ),
    _eligible(
        "curated_not_allowed",
        "openai-curated",
        {"requirements": RESTRICTED + _allowed("corp", source="local", path="{root}/market")},
    ),
    _eligible(
        "curated_rule_with_a_ref",
        "openai-curated",
        {
            "requirements": RESTRICTED
            + _allowed("openai", source="git", url=OPENAI_PLUGINS, ref="main")
        },
    ),
    _eligible(
        "curated_remote_not_configured_restricted",
        "openai-curated-remote",
        {"requirements": CURATED_RULE},
    ),
    *(
        _market_case(
            f"bundled_folder_{name.replace('-', '_')}",
            {"requirements": RESTRICTED, "user": _configured(name, BUNDLED_FOLDER + name)},
            name,
        )
        for name in ("openai-bundled", "openai-bundled-alpha")
    ),
    _plugin_case(
        "bundled_folder_under_another_name",
        {"user": _configured("local", BUNDLED_FOLDER + "openai-bundled")},
    ),
    _market_case(
        "bundled_folder_of_the_other_bundled_name",
        {"user": _configured("openai-bundled", BUNDLED_FOLDER + "openai-bundled-alpha")},
        "openai-bundled",
    ),
    _market_case(
        "primary_runtime_folder",
        {
            "requirements": RESTRICTED,
            "user": _configured("openai-primary-runtime", RUNTIME_FOLDER),
        },
        "openai-primary-runtime",
    ),
    _plugin_case(
        "primary_runtime_folder_under_another_name",
        {"user": _configured("local", RUNTIME_FOLDER)},
    ),
]

#: A hook in the repository root's `.codex` and one in the subfolder's, where both agents run:
#: which of them run says where each agent put the project root.
ROOT_AND_SUB = layered("UserPromptSubmit", "project", "subfolder")


def _markers(*markers: str) -> str:
    return f"project_root_markers = {json.dumps(list(markers))}\n"


MARKER_CASES: list[CodexCase] = [
    CodexCase(
        "root_markers_empty", "say hi", [Reply("hi")], ROOT_AND_SUB, toml={"user": _markers()}
    ),
    CodexCase(
        "root_marker_custom",
        "say hi",
        [Reply("hi")],
        ROOT_AND_SUB,
        files={"sub/marker.txt": ""},
        toml={"user": _markers("marker.txt")},
    ),
    CodexCase(
        "root_marker_missing",
        "say hi",
        [Reply("hi")],
        ROOT_AND_SUB,
        toml={"user": _markers("absent.txt")},
    ),
    CodexCase(
        "root_markers_of_the_system_config",
        "say hi",
        [Reply("hi")],
        ROOT_AND_SUB,
        toml={"system": _markers()},
    ),
    CodexCase(
        "root_marker_linked_outside",
        "say hi",
        [Reply("hi")],
        ROOT_AND_SUB,
        toml={"user": _markers("marker.txt")},
        links={"marker.txt": "outside/marker.txt"},
    ),
    CodexCase(
        "root_git_linked_to_a_repository",
        "say hi",
        [Reply("hi")],
        ROOT_AND_SUB,
        links={".git": "elsewhere/.git/"},
    ),
    CodexCase(
        "root_git_linked_to_an_empty_folder",
        "say hi",
        [Reply("hi")],
        ROOT_AND_SUB,
        links={".git": "empty/"},
    ),
    CodexCase(
        "root_markers_of_a_project_are_not_read",
        "say hi",
        [Reply("hi")],
        ROOT_AND_SUB,
        toml={"project": _markers()},
    ),
]

CASES += LAYER_CASES + MARKER_CASES + PLUGIN_CASES + MARKETPLACE_NAME_CASES


CLOUD_GUARD = (
    '[[hooks.PreToolUse]]\nmatcher = "Bash"\n[[hooks.PreToolUse.hooks]]\ntype = "command"\n'
    'command = "echo refused by the workspace >&2; exit 2"\ntimeout = 5\n'
)

#: A UserPromptSubmit hook of the bundle's config fragment: its plain stdout is context.
CLOUD_CONTEXT = (
    '[[hooks.UserPromptSubmit]]\n[[hooks.UserPromptSubmit.hooks]]\ntype = "command"\n'
    'command = "echo MARK cloud-config"\ntimeout = 10\n'
)
#: What hookwright's user policy says to fail Codex's hooks closed.
CLOSED_CODEX = "rules:\n  - fail: closed\n    dialects: [codex]\n"

CLOUD_CASES = [
    CodexCase(
        "cloud_requirements_from_codex_s_cache",
        "make a file",
        one_call("printf x > made.txt"),
        sign_in="business",
        cloud=[CLOUD_GUARD],
        compare=frozenset({"model", "files"}),
    ),
    CodexCase(
        "cloud_config_fragment_hooks_from_codex_s_cache",
        "make a file",
        one_call("printf x > made.txt"),
        hooks=observers("SessionStart"),
        sign_in="business",
        cloud_config=[CLOUD_GUARD],
    ),
    CodexCase(
        "cloud_config_fragment_between_system_and_user",
        "say hi",
        [Reply("hi")],
        layered("UserPromptSubmit", "requirements", "system", "user", "project"),
        sign_in="business",
        cloud_config=[CLOUD_CONTEXT],
        compare=frozenset({"model"}),
    ),
    CodexCase(
        "cloud_bundle_not_cached_fail_closed_does_not_start",
        "make a file",
        one_call("printf x > made.txt"),
        hooks=observers("SessionStart", "PreToolUse"),
        sign_in="business",
        policy=CLOSED_CODEX,
    ),
    CodexCase(
        "cloud_copy_used_with_an_expired_sign_in",
        "make a file",
        one_call("printf x > made.txt"),
        sign_in="business-expired",
        cloud=[CLOUD_GUARD],
        compare=frozenset({"model", "files"}),
    ),
    CodexCase(
        "cloud_bundle_not_cached_expired_sign_in_fail_closed_does_not_start",
        "make a file",
        one_call("printf x > made.txt"),
        hooks=observers("SessionStart", "PreToolUse"),
        sign_in="business-expired",
        policy=CLOSED_CODEX,
    ),
    CodexCase(
        "cloud_bundle_not_cached_runs_without_it_by_default",
        "make a file",
        one_call("printf x > made.txt"),
        hooks=observers("SessionStart"),
        sign_in="business",
        differs="without a fail-closed policy hookwright runs on, saying the copy is not read",
    ),
]


def _cloud_fragment(name: str, managed_only: bool) -> str:
    """A requirements fragment setting `allow_managed_hooks_only`, with a UserPromptSubmit
    hook that writes `<name>.txt` in the project and gives `MARK <name>` as context."""
    return (
        f"allow_managed_hooks_only = {str(managed_only).lower()}\n"
        "[[hooks.UserPromptSubmit]]\n[[hooks.UserPromptSubmit.hooks]]\n"
        f'type = "command"\ncommand = "printf ran > {name}.txt; echo MARK {name}"\n'
        "timeout = 10\n"
    )


def _two_fragments(name: str, first_managed_only: bool) -> CodexCase:
    """Two requirements fragments of the bundle disagreeing on `allow_managed_hooks_only`,
    each with a hook, and a user hook: whether the user hook runs says whose word wins, the
    context's order whose hooks come first."""
    return CodexCase(
        name,
        "say hi",
        [Reply("hi")],
        layered("UserPromptSubmit", "requirements", "user"),
        sign_in="business",
        cloud=[
            _cloud_fragment("fragment-one", first_managed_only),
            _cloud_fragment("fragment-two", not first_managed_only),
        ],
    )


def _fragment_and_file(name: str, file_managed_only: bool) -> CodexCase:
    """A requirements fragment of the bundle and ``requirements.toml`` disagreeing on
    `allow_managed_hooks_only`, each with a hook, and a user hook."""
    return CodexCase(
        name,
        "say hi",
        [Reply("hi")],
        layered("UserPromptSubmit", "requirements", "user"),
        toml={"requirements": f"allow_managed_hooks_only = {str(file_managed_only).lower()}\n"},
        sign_in="business",
        cloud=[_cloud_fragment("fragment", not file_managed_only)],
    )


CLOUD_CASES += [
    _two_fragments("cloud_requirements_two_fragments_first_managed_only", True),
    _two_fragments("cloud_requirements_two_fragments_second_managed_only", False),
    _fragment_and_file("cloud_requirements_fragment_and_file_file_managed_only", True),
    _fragment_and_file("cloud_requirements_fragment_and_file_fragment_managed_only", False),
]

CASES += CLOUD_CASES

#: Not TOML: a managed file Codex cannot parse.
UNPARSABLE = "hooks = [\n"

UNPARSABLE_MANAGED_CASES = [
    CodexCase(
        f"managed_{layer}_unparsable_{policy_name}",
        "make a file",
        one_call("printf x > made.txt"),
        hooks=observers("SessionStart", "PreToolUse"),
        toml={layer: UNPARSABLE},
        policy=policy,
        differs=None if policy else "without a fail-closed policy hookwright runs on, saying so",
    )
    for layer in ("requirements", "system")
    for policy_name, policy in (("fail_closed_does_not_start", CLOSED_CODEX), ("by_default", None))
]

CASES += UNPARSABLE_MANAGED_CASES

#: The message the main agent starts its subagent on: the subagent's prompt.
SUBTASK = "print sub"


def with_subagent(*sub_turns: Reply, agent_type: str | None = None) -> list[Reply]:
    """The main agent starts a subagent answering as `sub_turns`, waits for it (Codex's
    `wait_agent`; hookwright's `Agent` call returns with it), then ends."""
    spawn = Spawn(SPAWN_CALL, SUBTASK, sub_turns, agent_type)
    return [Reply(calls=[spawn]), Reply(calls=[Wait("call_wait", spawn.id)]), Reply("done")]


#: What the cases with a subagent compare: all but the main agent's requests after it
#: started the subagent (a documented difference of the tools that start one).
DELEGATED = frozenset({"stdin", "order", "delegated", "files"})

SUBAGENT_CASES = [
    CodexCase(
        "subagent_events",
        "delegate",
        with_subagent(Reply(calls=[Shell("call_sub", "printf sub")]), Reply("sub done")),
        [
            *observers("UserPromptSubmit", "SubagentStart", "SubagentStop", "Stop"),
            H("PreToolUse", "log-PreToolUse", matcher="Bash"),
        ],
        compare=DELEGATED,
    ),
    CodexCase(
        "subagent_start_context_and_stop_continuation",
        "delegate",
        with_subagent(Reply("sub done"), Reply("sub done again")),
        [
            H("SubagentStart", "start", specific("SubagentStart", additionalContext="MARK start")),
            H("SubagentStop", "subagent-stop-once", command=SUBAGENT_STOP_ONCE),
        ],
        compare=DELEGATED,
    ),
]

#: SubagentStart and SubagentStop matchers, by kind: Codex matches them against `agent_type`.
AGENT_TYPE_MATCHERS = {
    "exact": "default",
    "regex": "^def.*t$",
    "star": "*",
    "empty": "",
    "other": "explorer",
}


def _agent_type_matchers(name: str, agent_type: str | None) -> CodexCase:
    """A subagent of `agent_type` (None: the call names none, Codex's `default`) among
    SubagentStart and SubagentStop hooks of every kind of matcher."""
    return CodexCase(
        name,
        "delegate",
        with_subagent(Reply("sub done"), agent_type=agent_type),
        [
            H(event, f"{event}-{kind}", matcher=matcher)
            for event in ("SubagentStart", "SubagentStop")
            for kind, matcher in AGENT_TYPE_MATCHERS.items()
        ],
        compare=DELEGATED,
    )


#: PreToolUse matchers on the call starting a subagent, by kind: Codex's tool name, exact and
#: as a regex, and Claude Code's names for its own tool, exact and as a regex.
SPAWN_MATCHERS = {
    "exact": "spawn_agent",
    "regex": "^spawn_a.*t$",
    "claude": "Agent",
    "claude-regex": "^Ag",
    "legacy": "Task",
}

SUBAGENT_CASES += [
    # Codex: the subagent ends without asking its model, and without SubagentStop; the main
    # agent's wait reads it completed with no message (hookwright's `Agent` call: that it
    # ended blocked). Compared as the other subagent cases.
    CodexCase(
        "subagent_prompt_blocked",
        "delegate",
        with_subagent(Reply("sub done")),
        [
            H("UserPromptSubmit", "block-subagent-prompt", command=SUBAGENT_PROMPT_BLOCK),
            *observers("SubagentStart", "SubagentStop", "Stop"),
        ],
        compare=DELEGATED,
    ),
    _agent_type_matchers("subagent_matchers_on_agent_type", None),
    _agent_type_matchers("subagent_matchers_on_a_named_agent_type", "explorer"),
    # A deny of the call starting the subagent: no subagent, no PostToolUse; the model reads
    # the tool's name. Hooks read the call as Codex's `spawn_agent` (hookwright's `Agent`
    # shown so) and matchers name it so: `Agent` selects nothing. Everything compared.
    CodexCase(
        "subagent_spawn_denied",
        "delegate",
        [
            Reply(calls=[Spawn(SPAWN_CALL, SUBTASK, [Reply("sub done")], "explorer")]),
            Reply("done"),
        ],
        [
            H(
                "PreToolUse",
                "deny",
                specific(
                    "PreToolUse",
                    permissionDecision="deny",
                    permissionDecisionReason="MARK no subagents",
                ),
                "*",
            ),
            *[
                H("PreToolUse", f"spawn-{kind}", matcher=matcher)
                for kind, matcher in SPAWN_MATCHERS.items()
            ],
            *observers("SubagentStart", "PostToolUse", "Stop"),
        ],
    ),
]

CASES += SUBAGENT_CASES

assert len({case.name for case in CASES}) == len(CASES), json.dumps([c.name for c in CASES])
