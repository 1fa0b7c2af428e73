"""The reference agent's model layer: one `Model` protocol, scripted and real backends.

`make_model` turns a `--model` spec into a model: `scripted:PATH`, `openai:NAME` (chat
completions), `openai-responses:NAME` (the Responses API) or `anthropic:NAME`. The network
backends come wrapped in a `RetryingModel`.
"""

from __future__ import annotations

from pathlib import Path

from hookwright.runtime.models.base import (
    ERROR_KINDS,
    ErrorKind,
    Message,
    Model,
    ModelConfigError,
    ModelError,
    ModelResponse,
    TextCallback,
    ToolCall,
    ToolDefinition,
    Usage,
)
from hookwright.runtime.models.retry import RetryCallback, RetryingModel
from hookwright.runtime.models.scripted import END_OF_SCRIPT, ScriptedCall, ScriptedModel

SPEC_HELP = "use scripted:PATH, openai:NAME or anthropic:NAME"
#: The `--model` backends; `openai-responses` speaks the OpenAI Responses API (as Codex does).
BACKENDS = ("scripted", "openai", "openai-responses", "anthropic")


def make_model(
    spec: str, *, base_dir: Path | None = None, on_retry: RetryCallback | None = None
) -> Model:
    """Build the model a spec names; a relative scripted PATH resolves against `base_dir` or cwd.

    The SDK-backed modules are imported only when asked for, so a scripted run works without
    the `openai`/`anthropic` extras installed.
    """
    backend, sep, rest = spec.partition(":")
    if not sep or backend not in BACKENDS:
        raise ModelConfigError(f"unknown model {spec!r}: {SPEC_HELP}")
    if not rest.strip():
        raise ModelConfigError(
            f"model {spec!r} has no {'PATH' if backend == 'scripted' else 'NAME'}: {SPEC_HELP}"
        )
    if backend == "scripted":
        path = Path(rest).expanduser()
        if not path.is_absolute():
            path = (base_dir or Path.cwd()) / path
        return ScriptedModel.from_file(path)
    return RetryingModel(_sdk_model(backend, rest), on_retry=on_retry)


def _sdk_model(backend: str, name: str) -> Model:
    """An SDK-backed model; a missing SDK is a one-line error naming the extra to install."""
    try:
        if backend == "openai":
            from hookwright.runtime.models.openai_model import OpenAIModel

            return OpenAIModel.from_env(name)
        if backend == "openai-responses":
            from hookwright.runtime.models.responses_model import OpenAIResponsesModel

            return OpenAIResponsesModel.from_env(name)
        from hookwright.runtime.models.anthropic_model import AnthropicModel

        return AnthropicModel.from_env(name)
    except ModuleNotFoundError as exc:
        package = backend.partition("-")[0]
        if (exc.name or "").partition(".")[0] != package:
            raise
        raise ModelConfigError(
            f"--model {backend}:{name} needs the {package} package, an optional extra: "
            f"pip install 'hookwright[{package}]'"
        ) from None


__all__ = [
    "BACKENDS",
    "END_OF_SCRIPT",
    "ERROR_KINDS",
    "SPEC_HELP",
    "ErrorKind",
    "Message",
    "Model",
    "ModelConfigError",
    "ModelError",
    "ModelResponse",
    "RetryCallback",
    "RetryingModel",
    "ScriptedCall",
    "ScriptedModel",
    "TextCallback",
    "ToolCall",
    "ToolDefinition",
    "Usage",
    "make_model",
]
