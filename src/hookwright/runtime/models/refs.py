"""Model refs: how hooks see the model of a call, and the model a hook switches a call to.

A model's ref is `<provider>/<name>` (`openai/gpt-4o-mini`, `scripted/scripted`): OpenHarness
hooks match it (`model_ref`) and may patch it. A request's model, as a hook left it, names:

* `provider:name` (a `--model` spec): that model, whatever the session's provider;
* `<provider>/<name>` with the session's provider, or OpenHarness' `platform/<name>` and
  `workspace/<name>`: `name` on the session's model;
* anything else: a model name for the session's model (`gpt-4o`, `meta-llama/llama-3`).

A model that cannot be built (unknown backend, missing credentials) fails the call as an
`invalid_request` model error, so the run fails the way any model error fails it.
"""

from __future__ import annotations

from pathlib import Path

from hookwright.runtime.models import BACKENDS, Model, ModelConfigError, ModelError, make_model
from hookwright.runtime.models.base import Message, ModelResponse, TextCallback, ToolDefinition
from hookwright.runtime.models.retry import RetryingModel
from hookwright.runtime.models.scripted import ScriptedModel

_PROVIDERS = {
    "OpenAIModel": "openai",
    "OpenAIResponsesModel": "openai",
    "AnthropicModel": "anthropic",
}
#: Ref prefixes that mean "the session's provider" (the real OpenHarness' canonical refs).
_SESSION_PREFIXES = ("platform", "workspace")


def provider_of(model: Model) -> str:
    """The `--model` backend `model` came from (`openai`, `anthropic`, `scripted`)."""
    while isinstance(model, RetryingModel):
        model = model.inner
    if isinstance(model, ScriptedModel):
        return "scripted"
    name = type(model).__name__
    return _PROVIDERS.get(name) or name.lower().removesuffix("model") or "model"


def model_ref(model: Model, name: str | None = None) -> str:
    return f"{provider_of(model)}/{name or model.name}"


class ModelSwitch:
    """Resolves the model a request names against the session's model; the models it builds
    for `provider:name` specs are kept for the session."""

    def __init__(self, base_dir: Path) -> None:
        self.base_dir = base_dir
        self._built: dict[str, Model] = {}

    def resolve(self, session: Model, requested: str | None) -> tuple[Model, str]:
        """The model to call and the model name to call it with."""
        if not requested:
            return session, session.name
        backend, sep, _ = requested.partition(":")
        if sep and backend in BACKENDS:
            model = self._build(requested)
            return model, model.name
        prefix, slash, name = requested.partition("/")
        if slash and name and prefix in (provider_of(session), *_SESSION_PREFIXES):
            return session, name
        return session, requested

    def ref(self, session: Model, requested: str | None) -> str:
        """The ref of the model a request names (what after_model_call hooks match)."""
        model, name = self.resolve(session, requested)
        return model_ref(model, name)

    def _build(self, spec: str) -> Model:
        built = self._built.get(spec)
        if built is None:
            try:
                built = make_model(spec, base_dir=self.base_dir)
            except (ModelConfigError, ImportError) as exc:
                built = _Unavailable(spec, str(exc))
            self._built[spec] = built
        return built


class _Unavailable:
    """A model a hook named that cannot be built: every call fails with the reason."""

    def __init__(self, spec: str, reason: str) -> None:
        self.name = spec
        self.reason = reason

    async def complete(
        self,
        messages: list[Message],
        tools: list[ToolDefinition] | None = None,
        *,
        options: dict[str, object] | None = None,
        on_text: TextCallback | None = None,
        model: str | None = None,
    ) -> ModelResponse:
        raise ModelError("invalid_request", f"model {self.name!r} named by a hook: {self.reason}")
