"""`hookwright serve` options and its startup: the printed URL, the token, the loud warning."""

from __future__ import annotations

import logging
import os
import re
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer

from cli_runner import run_hookwright
from hookwright.cli.serve import RedactToken, page_url, settings_from_options, warn_if_exposed

WAIT = 60.0


def options(project: Path, **extra: Any) -> dict[str, Any]:
    return {
        "project": project,
        "model": None,
        "skill": None,
        "trust": False,
        "permission_mode": "default",
        **extra,
    }


def test_allow_origin_values_are_kept_in_canonical_form(project: Path) -> None:
    settings = settings_from_options(
        **options(
            project,
            host="localhost",
            allow_origin=["HTTP://LocalHost:3000/", "http://localhost:3000", "https://a.test:443"],
        )
    )
    assert settings.allow_origins == ("http://localhost:3000", "https://a.test")
    assert settings.host == "localhost"


@pytest.mark.parametrize("origin", ["localhost:3000", "http://a.test/app", "ws://a.test"])
def test_a_bad_allow_origin_is_refused_at_startup(
    project: Path, capsys: pytest.CaptureFixture[str], origin: str
) -> None:
    with pytest.raises(typer.Exit) as raised:
        settings_from_options(**options(project, allow_origin=[origin]))
    assert raised.value.exit_code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"hookwright: error: --allow-origin: origin {origin!r}")
    assert err.count("\n") == 1


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.10", "myhost.lan"])
def test_a_host_that_is_not_loopback_gets_a_loud_warning(
    capsys: pytest.CaptureFixture[str], host: str, tmp_path: Path
) -> None:
    warn_if_exposed(host, tmp_path)
    err = capsys.readouterr().err
    assert f"hookwright: WARNING: --host {host} is not a loopback address" in err
    assert str(tmp_path) in err
    assert "!" * 78 in err


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "localhost", "::1"])
def test_a_loopback_host_gets_no_warning(
    capsys: pytest.CaptureFixture[str], host: str, tmp_path: Path
) -> None:
    warn_if_exposed(host, tmp_path)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("127.0.0.1", "http://127.0.0.1:8765/?token=T"),
        ("::1", "http://[::1]:8765/?token=T"),
        ("0.0.0.0", "http://127.0.0.1:8765/?token=T"),
        ("::", "http://[::1]:8765/?token=T"),
        ("myhost.lan", "http://myhost.lan:8765/?token=T"),
    ],
)
def test_the_printed_url_carries_the_token(host: str, url: str) -> None:
    assert page_url(host, 8765, "T") == url


def test_the_token_is_redacted_from_request_log_lines() -> None:
    record = logging.LogRecord(
        "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s" %d', None, None
    )
    record.args = ("127.0.0.1:5000", "GET", "/?token=SECRET-TOKEN", 200)
    assert RedactToken("SECRET-TOKEN").filter(record)
    assert record.getMessage() == '127.0.0.1:5000 - "GET /?token=<token>" 200'


class ServeProcess:
    """`python -m hookwright serve --port 0`; a thread collects its output (uvicorn's request
    log goes to stdout, the rest to stderr)."""

    def __init__(self, project: Path, home: Path, *first: str) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("HOOKWRIGHT_")}
        serve = ["serve", "-p", str(project), "--port", "0"]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "hookwright", *first, *serve],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**env, "HOME": str(home)},
        )
        self.lines: list[str] = []
        self.url: str | None = None
        self.ready = threading.Event()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)
            if match := re.search(r"open (http://127\.0\.0\.1:\d+/\?token=[\w-]+)$", line):
                self.url = match.group(1)
                self.ready.set()
        self.ready.set()

    def stop(self) -> str:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self.reader.join(timeout=30)
        return "".join(self.lines)


@pytest.fixture
def serve_process(project: Path, isolated_home: Path) -> Iterator[ServeProcess]:
    process = ServeProcess(project, isolated_home)
    try:
        yield process
    finally:
        process.stop()


def test_serve_prints_a_url_with_the_bound_port_and_a_token_it_keeps_out_of_logs(
    serve_process: ServeProcess,
) -> None:
    assert serve_process.ready.wait(WAIT) and serve_process.url, "".join(serve_process.lines)
    url = serve_process.url
    token = url.rsplit("=", 1)[1]
    assert len(token) >= 43
    with urllib.request.urlopen(url, timeout=WAIT) as response:
        assert 'src="app.js"' in response.read().decode()
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(url.split("?")[0], timeout=WAIT)
    assert refused.value.code == 403
    log = serve_process.stop()
    assert "WARNING" not in log
    assert log.count(token) == 1, log
    assert '"GET /?token=<token> HTTP/1.1" 200' in log
    first_url = next(line for line in log.splitlines() if "http://" in line)
    assert first_url.endswith(url), log


def test_serve_says_where_it_listens_in_one_line_of_its_own(
    serve_process: ServeProcess, project: Path
) -> None:
    """At the default verbosity the start-up is hookwright's one line: none of uvicorn's
    ("Started server process", "Waiting for application startup.", ...), nor its shutdown."""
    assert serve_process.ready.wait(WAIT) and serve_process.url, "".join(serve_process.lines)
    started = "".join(serve_process.lines)
    log = serve_process.stop()
    assert started == f"hookwright: serving {project} until Ctrl-C; open {serve_process.url}\n"
    assert log == started, log  # nothing more as it stops


def test_serve_under_debug_keeps_uvicorns_start_up_lines(
    project: Path, isolated_home: Path
) -> None:
    process = ServeProcess(project, isolated_home, "--debug")
    try:
        assert process.ready.wait(WAIT) and process.url, "".join(process.lines)
    finally:
        log = process.stop()
    assert "Application startup complete." in log and "Started server process" in log, log
    assert f"until Ctrl-C; open {process.url}\n" in log


def test_serve_on_a_busy_port_is_one_line_with_the_fix_and_exit_1(
    project: Path, isolated_home: Path
) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        refused = run_hookwright(
            "serve", "-p", str(project), "--port", str(port), home=isolated_home
        )
    assert refused.returncode == 1
    assert refused.stdout == ""
    assert refused.stderr == (
        f"hookwright: error: cannot listen on 127.0.0.1:{port}: Address already in use; "
        "another program listens there: stop it, or choose another --port (--port 0 picks a "
        "free one)\n"
    )


def test_serve_on_an_address_of_no_interface_is_one_line_with_the_fix(
    project: Path, isolated_home: Path
) -> None:
    """192.0.2.1 (TEST-NET-1, never a local interface): the bind is refused, not the host."""
    refused = run_hookwright(
        "serve", "-p", str(project), "--host", "192.0.2.1", "--port", "0", home=isolated_home
    )
    assert refused.returncode == 1
    last = refused.stderr.splitlines()[-1]
    assert last == (
        "hookwright: error: cannot listen on 192.0.2.1:0: Cannot assign requested address; "
        "no interface of this machine has that address: choose another --host (127.0.0.1 is "
        "this machine only)"
    ), refused.stderr


def test_permission_timeout_option(project: Path, isolated_home: Path) -> None:
    refused = run_hookwright(
        "serve", "-p", str(project), "--permission-timeout", "0", home=isolated_home
    )
    assert refused.returncode == 2
    assert "--permission-timeout" in refused.stderr and refused.stderr.count("\n") == 1
    settings = settings_from_options(**options(project, permission_timeout=2.5))
    assert settings.permission_timeout == 2.5
