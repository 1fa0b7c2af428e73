"""What resuming a session costs, as Claude Code 2.1.332 tells SessionStart hooks on
``--resume`` (measured with the real CLI against a scripted API, the transcript's times moved
back between runs):

* ``seconds_since_last_response``: whole seconds since the transcript's last model answer;
* ``context_tokens``: the tokens that answer's usage counts (input, cache and output);
* ``prompt_cache_likely_expired``: more than 300 seconds (the 5 minute cache) have passed
  (297 s: false, 306 s: true);
* ``estimated_cache_write_usd``: writing those tokens to the cache again, at the 5 minute cache
  write price per million tokens of the session's model, rounded to 4 decimals. 2.1.332 knows
  ``claude-sonnet-5`` at 2.50; every other model was measured at 6.25 (``claude-opus-5``,
  ``claude-haiku-5``, a model it does not know).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Final

from hookwright.host.switches import ResumeCost
from hookwright.runtime.transcript import last_response

#: Seconds a prompt cache entry lives (Claude Code's default 5 minute cache).
CACHE_TTL_SECONDS: Final = 300
#: USD per million tokens written to the 5 minute cache, by model, as Claude Code 2.1.332
#: prices them; `DEFAULT_CACHE_WRITE_USD` for the rest.
CACHE_WRITE_USD: Final[dict[str, float]] = {"claude-sonnet-5": 2.5}
DEFAULT_CACHE_WRITE_USD: Final = 6.25


def resume_cost(transcript: Path, model: str, now: float) -> ResumeCost:
    """The cost of resuming the session of `transcript` with `model` at `now` (seconds since
    the epoch). A transcript without an answer (or one without usage) counts no tokens and no
    time."""
    last = last_response(transcript)
    seconds = max(0, math.floor(now - last.at)) if last is not None else 0
    tokens = (last.context_tokens or 0) if last is not None else 0
    price = CACHE_WRITE_USD.get(model, DEFAULT_CACHE_WRITE_USD)
    return ResumeCost(
        seconds_since_last_response=seconds,
        context_tokens=tokens,
        prompt_cache_likely_expired=seconds > CACHE_TTL_SECONDS,
        estimated_cache_write_usd=round(tokens * price / 1_000_000, 4),
    )
