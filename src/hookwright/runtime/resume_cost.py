"""What resuming a session costs, as Claude Code 2.1.332 tells SessionStart hooks on
``--resume`` (measured with the real CLI against a scripted API, the transcript's times moved
back between runs):

* ``seconds_since_last_response``: whole seconds since the transcript's last model answer;
* ``context_tokens``: the tokens that answer's usage counts (input, cache and output);
* ``prompt_cache_likely_expired``: more than 300 seconds (the 5 minute cache) have passed
  (297 s: false, 306 s: true);
* ``estimated_cache_write_usd``: writing those tokens to the cache again, at the 5 minute cache
  write price per million tokens of the session's model in the version's catalog, rounded to 4
  decimals (`ClaudeCodeProfile.cache_write`; measured: ``claude-sonnet-5`` at 2.50,
  ``claude-opus-5`` at 6.25, and a model it does not list, ``claude-haiku-5``, at 6.25).
"""

from __future__ import annotations

import math
from typing import Final

from hookwright.dialects.claude_profiles import ClaudeCodeProfile
from hookwright.host.switches import ResumeCost
from hookwright.runtime.transcript import LastResponse

#: Seconds a prompt cache entry lives (Claude Code's default 5 minute cache).
CACHE_TTL_SECONDS: Final = 300


def cache_warm(answered_at: float | None, now: float) -> bool:
    """Whether the prompt cache of a session whose model last answered at `answered_at`
    (seconds since the epoch; None: never) is still warm at `now`: PreModelSwitch's
    ``prompt_cache_warm``, the contrary of ``prompt_cache_likely_expired`` (measured: true after
    an answer that reported no cache tokens at all)."""
    return answered_at is not None and math.floor(now - answered_at) <= CACHE_TTL_SECONDS


def resume_cost(
    last: LastResponse | None, model: str, now: float, profile: ClaudeCodeProfile
) -> ResumeCost:
    """The cost of resuming, with `model` at `now` (seconds since the epoch), a session whose
    transcript's last answer is `last`, priced by `profile`'s catalog. No answer (or one
    without usage) counts no tokens and no time."""
    seconds = max(0, math.floor(now - last.at)) if last is not None else 0
    tokens = (last.context_tokens or 0) if last is not None else 0
    usd, _pricing = profile.cache_write(model, tokens)
    return ResumeCost(
        seconds_since_last_response=seconds,
        context_tokens=tokens,
        prompt_cache_likely_expired=seconds > CACHE_TTL_SECONDS,
        estimated_cache_write_usd=usd,
    )
