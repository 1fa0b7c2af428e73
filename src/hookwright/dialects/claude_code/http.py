"""HTTP hooks (spec §4.3): POST the input JSON, read the reply like command JSON.

Status codes never block; to deny, an endpoint answers 2xx with decision JSON. Header values
may use ``$VAR`` / ``${VAR}``, interpolated only for variables the hook lists in
``allowedEnvVars`` (intersected with the settings' ``httpHookAllowedEnvVars`` when that is
set); any other variable becomes an empty string. The URL must match
``allowedHttpHookUrls`` when that is set, and the SSRF guard of the HTTP transport applies.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from hookwright.core.events import HookInput
from hookwright.core.results import HookResult, Status
from hookwright.core.spec import RunContext
from hookwright.dialects.claude_code.codec import decode_http
from hookwright.dialects.claude_code.config import HttpHook
from hookwright.dialects.claude_code.limits import cap_result, output_dir
from hookwright.dialects.claude_code.notes import attach_notes
from hookwright.dialects.claude_code.stdin import encode_body
from hookwright.transports.http import post_json

_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def url_pattern(pattern: str) -> re.Pattern[str]:
    """An `allowedHttpHookUrls` entry: `*` matches any run of characters, the rest is literal."""
    return re.compile(".*".join(re.escape(part) for part in pattern.split("*")), re.DOTALL)


@dataclass(frozen=True, slots=True)
class HttpPolicy:
    #: None: no restriction; empty: every URL refused.
    allowed_urls: tuple[str, ...] | None = None
    #: None: the hook's own allowedEnvVars apply unchanged.
    allowed_env_vars: frozenset[str] | None = None

    def url_allowed(self, url: str) -> bool:
        if self.allowed_urls is None:
            return True
        return any(url_pattern(p).fullmatch(url) for p in self.allowed_urls)

    def env_vars_for(self, hook_vars: list[str]) -> frozenset[str]:
        wanted = frozenset(hook_vars)
        return wanted if self.allowed_env_vars is None else wanted & self.allowed_env_vars


def interpolate(value: str, allowed: frozenset[str], env: Mapping[str, str]) -> str:
    def replace(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        return env.get(name, "") if name in allowed else ""

    return _VARIABLE.sub(replace, value)


class HttpHandler:
    def __init__(self, config: HttpHook, *, policy: HttpPolicy, home: Path, timeout: float) -> None:
        self.config = config
        self.policy = policy
        self.home = home
        self.timeout = timeout

    async def __call__(self, inp: HookInput, ctx: RunContext) -> HookResult | None:
        url = self.config.url
        if not self.policy.url_allowed(url):
            return HookResult(
                status=Status.error, error=f"URL {url} is not allowed by allowedHttpHookUrls"
            )
        allowed = self.policy.env_vars_for(self.config.allowedEnvVars)
        headers = {
            name: interpolate(value, allowed, os.environ)
            for name, value in self.config.headers.items()
        }
        outcome = await post_json(
            url,
            encode_body(inp),
            headers=headers,
            timeout=ctx.timeout if ctx.timeout is not None else self.timeout,
        )
        result = decode_http(
            inp,
            status=outcome.status,
            text=outcome.text,
            error=outcome.error,
            timed_out=outcome.timed_out,
        )
        capped = cap_result(result, output_dir(self.home))
        return attach_notes(inp, capped, command=url, plain=False)
