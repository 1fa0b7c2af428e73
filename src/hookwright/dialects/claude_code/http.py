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
from urllib.parse import urlsplit

from hookwright.core.events import HookInput
from hookwright.core.results import HookResult, Status
from hookwright.core.run_context import RunContext
from hookwright.dialects.base import Handler
from hookwright.dialects.claude_code.codec import decode_http
from hookwright.dialects.claude_code.config import HttpHook
from hookwright.dialects.claude_code.limits import cap_result, output_dir
from hookwright.dialects.claude_code.notes import attach_notes
from hookwright.dialects.claude_code.on_failure import fail_closed, http_failure
from hookwright.dialects.claude_code.stdin import encode_body
from hookwright.transports.base import Envelope, Failure, Output, Reply
from hookwright.transports.http import HttpTransport

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
    #: The settings files that set ``allowedHttpHookUrls``.
    urls_set_in: tuple[str, ...] = ()

    def url_allowed(self, url: str) -> bool:
        if self.allowed_urls is None:
            return True
        return any(url_pattern(p).fullmatch(url) for p in self.allowed_urls)

    def url_refusal(self, url: str) -> str | None:
        """Why an http hook posting to `url` never runs (Claude Code blocks it before the
        request, a non-blocking error), and how to allow it; None when the URL is allowed."""
        if self.url_allowed(url):
            return None
        where = ", ".join(self.urls_set_in) or "the settings"
        patterns = ", ".join(f'"{p}"' for p in self.allowed_urls or ()) or "none"
        parts = urlsplit(url)
        example = f"{parts.scheme}://{parts.netloc}/*" if parts.scheme and parts.netloc else url
        return (
            f"URL {url} is not allowed by allowedHttpHookUrls (patterns: {patterns}; set in "
            f"{where}): Claude Code blocks this hook, so the guard never runs; to allow it, add "
            f'a pattern that matches it, such as "{example}", to allowedHttpHookUrls'
        )

    def env_vars_for(self, hook_vars: list[str]) -> frozenset[str]:
        wanted = frozenset(hook_vars)
        return wanted if self.allowed_env_vars is None else wanted & self.allowed_env_vars


def interpolate(value: str, allowed: frozenset[str], env: Mapping[str, str]) -> str:
    def replace(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        return env.get(name, "") if name in allowed else ""

    return _VARIABLE.sub(replace, value)


class HttpCodec:
    """The codec of one `http` hook, run as `Handler(HttpTransport(), HttpCodec(...))`; with
    `blocks` a failed request blocks (`on_failure`)."""

    def __init__(
        self,
        config: HttpHook,
        *,
        policy: HttpPolicy,
        home: Path,
        timeout: float,
        blocks: bool = False,
    ) -> None:
        self.config = config
        self.policy = policy
        self.home = home
        self.timeout = timeout
        self.blocks = blocks

    def encode(self, inp: HookInput, ctx: RunContext) -> Envelope | HookResult:
        url = self.config.url
        if not self.policy.url_allowed(url):
            refused = HookResult(
                status=Status.error, error=f"URL {url} is not allowed by allowedHttpHookUrls"
            )
            return self._checked(inp, refused)
        allowed = self.policy.env_vars_for(self.config.allowedEnvVars)
        headers = {
            name: interpolate(value, allowed, os.environ)
            for name, value in self.config.headers.items()
        }
        return Envelope(
            body=encode_body(inp, actions=self.config.actions),
            url=url,
            method="POST",
            headers=headers,
            timeout=ctx.timeout if ctx.timeout is not None else self.timeout,
        )

    def decode(
        self, reply: Reply, sent: Envelope, inp: HookInput, ctx: RunContext
    ) -> HookResult | None:
        status, text = reply.code, ""
        if isinstance(reply, Failure):
            result = decode_http(
                inp, status=status, text="", error=reply.reason, timed_out=reply.timed_out
            )
        else:
            text = reply.text if isinstance(reply, Output) else reply.reason
            result = decode_http(inp, status=status, text=text, error=None, timed_out=False)
        capped = cap_result(self._checked(inp, result, status, text), output_dir(self.home))
        return attach_notes(inp, capped, command=self.config.url, plain=False)

    def _checked(
        self, inp: HookInput, result: HookResult, status: int | None = None, body: str = ""
    ) -> HookResult:
        """`result`, blocked when it is a failure of a hook that `blocks`."""
        if not self.blocks:
            return result
        url = self.config.url
        failure = http_failure(result, url=url, status=status, body=body)
        return result if failure is None else fail_closed(inp, result, failure, label=url)

    async def aclose(self) -> None:
        return None


def http_handler(
    config: HttpHook, *, policy: HttpPolicy, home: Path, timeout: float, blocks: bool = False
) -> Handler:
    """One http hook as an engine handler: the HTTP transport and its codec (which bounds the
    request's time itself when it `blocks`, so a timeout blocks as Claude Code words it)."""
    codec = HttpCodec(config, policy=policy, home=home, timeout=timeout, blocks=blocks)
    return Handler(HttpTransport(), codec, enforces_timeout=blocks)
