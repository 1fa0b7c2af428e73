"""A project's hooks, of every dialect, governing agents written with other frameworks.

One module per framework, each needing its optional extra and imported only when used (the
core never imports this package):

* `hookwright.adapters.openai_agents` (``pip install 'hookwright[openai-agents]'``)
* `hookwright.adapters.langchain` (``pip install 'hookwright[langchain]'``)
* `hookwright.adapters.pydantic_ai` (``pip install 'hookwright[pydantic-ai]'``)
* `hookwright.adapters.claude_agent_sdk` (``pip install 'hookwright[claude-agent-sdk]'``)
* `hookwright.adapters.google_adk` (``pip install 'hookwright[google-adk]'``)

Every adapter is a thin translation onto `hookwright.host.FrameworkSession`, which holds all
framework-neutral behaviour (SessionStart once, context for the next model call, one tool step
per call id, failing closed, Stop feedback with its cap, reporting what a framework cannot
express). An adapter maps the framework's points onto it:

* session start / first run      -> `FrameworkSession.prompt` (fires SessionStart once)
* before each model call          -> `model_call` (model-call hooks, skill injections: this call
  only), then `take_context()` into the model input; `ending` ends the turn
* each tool call                  -> `before_tool` (PreToolUse, then the permission gates) -> run
  `step.run`, or answer `step.answer`
  (or pause for the user on `step.ask` where the framework can) -> `after_tool` for a run
* the agent's final answer        -> `stop`: feedback means run the model again
* the run, cancelled              -> `ainterruptible` / `interruptible` around it (Interrupt,
  once per turn, then the cancellation goes on)
* session close                   -> `close` (SessionEnd)

It declares what the framework can express in `Abilities`; everything else is reported. A
framework that applies hook answers itself in Claude Code's format (the claude-agent-sdk CLI)
calls `relay` with its own hook input and answers with `encode_output` of the verdict, and
`permission` when it would ask for permission.
Importing an adapter whose framework is missing raises `MissingExtraError` (an `ImportError`)
whose one-line message names the extra to install, as the command line does for a model SDK.

docs/adapters.md has the event mapping per framework and the limits; tests/adapters/scenario.py
is the conformance scenario every adapter passes.
"""

from hookwright.adapters._extras import MissingExtraError

__all__ = ["MissingExtraError"]
