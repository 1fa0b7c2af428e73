"""The Python hooks the warm-vs-spawn differential test runs both ways.

Every Python style of `tests/claude_code/test_styles.py` (harvested through its own builders),
the fixed-output hook of the Claude Code test harness (`Harness.emit`), and hooks that make
each observable property of a process visible: argv, ``__file__``, ``sys.path[0]``,
``sys.executable``, environment, cwd, stdin bytes, buffering and flushing, exit codes, files
written, threads, atexit handlers, children. Each entry: a name, the script's source (a file
``hook.py`` in the run's folder), its arguments and the stdin bytes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from tests.claude_code import test_styles

PRELUDE = "import json, os, sys\n"
EVENT = (
    json.dumps(
        {
            "session_id": "s1",
            "cwd": "/nowhere",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "rm -rf build"},
            "stop_hook_active": False,
        }
    ).encode()
    + b"\n"
)


@dataclass(frozen=True)
class Hook:
    name: str
    source: str
    args: tuple[str, ...] = ()
    stdin: bytes = EVENT


class _Bodies:
    """Stands in for the styles' `Harness`: records the Python body a style builds."""

    def __init__(self) -> None:
        self.body = ""

    def py(self, body: str) -> str:
        self.body = PRELUDE + body
        return "hook"


def _styles() -> list[Hook]:
    hooks = []
    for name in sorted(vars(test_styles)):
        table = getattr(test_styles, name)
        if isinstance(table, dict) and "python" in table:
            bodies = _Bodies()
            table["python"](bodies)
            hooks.append(Hook(f"style-{name.lower()}", bodies.body))
    return hooks


def _emit(stdout: str, stderr: str, code: int) -> str:
    return PRELUDE + (
        f"sys.stdin.read()\nsys.stdout.write({stdout!r})\n"
        f"sys.stderr.write({stderr!r})\nsys.exit({code})\n"
    )


SHOW_PROCESS = PRELUDE + (
    "data = sys.stdin.buffer.read()\n"
    "print(json.dumps({'argv': sys.argv, 'orig_argv': sys.orig_argv, 'file': __file__,\n"
    "    'path0': sys.path[0], 'path': sys.path, 'executable': sys.executable,\n"
    "    'cwd': os.getcwd(), 'env': list(os.environ.items()), 'name': __name__,\n"
    "    'stdin': data.decode('latin-1'), 'main': sorted(globals()),\n"
    "    'loader': type(__loader__).__name__, 'spec': repr(__spec__),\n"
    "    'flags': list(sys.flags), 'stdio': [[s.encoding, s.errors, s.line_buffering,\n"
    "    s.write_through, type(s.buffer).__name__, s.name, s.buffer.raw.name\n"
    "    if hasattr(s.buffer, 'raw') else None] for s in (sys.stdin, sys.stdout, sys.stderr)],\n"
    "    'fds': sorted(os.listdir('/proc/self/fd')), 'umask': os.umask(0o22),\n"
    "    'sid_is_pgid': os.getsid(0) == os.getpgid(0), 'ppid_alive': os.getppid() > 1}))\n"
)

EDGES = [
    Hook("exit-0", PRELUDE + "sys.exit(0)\n"),
    Hook("exit-3", PRELUDE + "print('out')\nsys.exit(3)\n"),
    Hook("exit-message", PRELUDE + "print('out')\nsys.exit('bad input')\n"),
    Hook("exit-none", PRELUDE + "sys.exit(None)\n"),
    Hook("exit-true", PRELUDE + "sys.exit(True)\n"),
    Hook("exit-256", PRELUDE + "raise SystemExit(256)\n"),
    Hook("exit-builtin", PRELUDE + "exit(2)\n"),
    Hook("exit-object", PRELUDE + "sys.exit(['a', 1])\n"),
    Hook("exception", PRELUDE + "def f():\n    raise ValueError('boom')\nprint('x')\nf()\n"),
    Hook(
        "exception-chained",
        PRELUDE
        + "try:\n    {}['k']\nexcept KeyError as e:\n    raise RuntimeError('wrapped') from e\n",
    ),
    Hook("syntax-error", "import sys\ndef (:\n"),
    Hook("keyboard-interrupt", PRELUDE + "print('before', flush=True)\nraise KeyboardInterrupt\n"),
    Hook("os-exit-unflushed", PRELUDE + "sys.stdout.write('lost?')\nos._exit(7)\n"),
    Hook(
        "self-signal",
        PRELUDE + "import signal\nprint('x', flush=True)\nos.kill(os.getpid(), signal.SIGTERM)\n",
    ),
    Hook("process", SHOW_PROCESS, ("a", "b c", "-x", "")),
    Hook("process-no-stdin", SHOW_PROCESS, (), b""),
    Hook(
        "large-stdin-stdout",
        PRELUDE + "data = sys.stdin.buffer.read()\nsys.stdout.buffer.write(data * 3)\n"
        "sys.stderr.write(str(len(data)))\n",
        (),
        bytes(range(256)) * 800,
    ),
    Hook("stdin-not-read", PRELUDE + "print('ignored stdin')\n", (), b"x" * 300_000),
    Hook(
        "interleaving",
        PRELUDE + "print('a')\nsys.stdout.buffer.write(b'b\\n')\nos.write(1, b'c\\n')\n"
        "print('d', file=sys.stderr)\nos.write(2, b'e\\n')\nprint('f', flush=True)\n"
        "sys.stdout.write('g')\nos.write(1, b'h')\n",
    ),
    Hook("unbuffered-by-env", PRELUDE + "print(sys.stdout.write_through, sys.flags)\n"),
    Hook(
        "files-written",
        PRELUDE + "open('out.txt', 'w').write(sys.stdin.read())\n"
        "f = open('left-open.txt', 'w')\nf.write('never closed')\n"
        "os.makedirs('sub/dir', exist_ok=True)\n"
        "with open('sub/dir/n.json', 'w') as g:\n    json.dump({'cwd': os.getcwd()}, g)\n",
    ),
    Hook(
        "atexit-and-threads",
        PRELUDE + "import atexit, threading, time\n"
        "atexit.register(lambda: print('atexit', flush=True))\n"
        "def late():\n    time.sleep(0.2)\n    print('thread done')\n"
        "threading.Thread(target=late).start()\nprint('main done')\n",
    ),
    Hook(
        "forks-child",
        PRELUDE + "pid = os.fork()\nif pid == 0:\n    print('child', flush=True)\n    os._exit(0)\n"
        "os.waitpid(pid, 0)\nprint('parent')\n",
    ),
    Hook(
        "subprocess-child",
        PRELUDE + "import subprocess\n"
        "r = subprocess.run([sys.executable, '-c', 'import os, sys; "
        'print(sorted(k for k in os.environ if k != "HOOKWRIGHT_HOOK_RUN")); print(sys.argv)\'],\n'
        "    capture_output=True, text=True)\nprint(r.stdout, r.returncode)\n",
    ),
    Hook(
        "imports-and-modules",
        PRELUDE + "import re, pathlib, subprocess, shutil, tempfile, hashlib, datetime\n"
        "print(re.sub('a', 'b', 'aaa'), pathlib.Path(__file__).name, __name__)\n"
        "print(hashlib.sha256(b'x').hexdigest()[:8], type(datetime.datetime.now()).__name__)\n",
    ),
    Hook(
        "logging-handlers",
        PRELUDE + "import logging\n"
        "logging.basicConfig(level=logging.INFO, format='%(levelname)s %(message)s')\n"
        "logging.getLogger().addHandler(logging.FileHandler('log.txt'))\n"
        "logging.getLogger('hook').info('checked %s', sys.argv[0])\n"
        "print('done')\n",
    ),
    Hook(
        "logging-at-exit",
        PRELUDE + "import atexit, logging\n"
        "log = logging.getLogger('hook')\n"
        "log.addHandler(logging.FileHandler('log.txt'))\n"
        "log.addHandler(logging.StreamHandler(sys.stdout))\n"
        "log.setLevel(logging.INFO)\n"
        "atexit.register(lambda: log.info('atexit line'))\n"
        "class T:\n    def __del__(self):\n        log.info('finalizer line')\n"
        "t = T()\nlog.info('main line')\n",
    ),
    Hook("random-differs", PRELUDE + "import random\nprint(len(str(random.random())) > 2)\n"),
    Hook(
        "reads-env-file",
        PRELUDE + "print(os.environ.get('CLAUDE_PROJECT_DIR'), os.environ.get('HOME'))\n",
    ),
    Hook(
        "del-at-exit",
        PRELUDE + "class T:\n    def __del__(self):\n        print('deleted')\nt = T()\n",
    ),
    Hook(
        "stderr-partial-line", PRELUDE + "sys.stderr.write('no newline')\nsys.stdout.write('x')\n"
    ),
    Hook(
        "non-utf8-output",
        PRELUDE + "sys.stdout.buffer.write(b'\\xff\\xfe ok\\n')\nprint('\\u00e9')\n",
    ),
    Hook("read-stdin-lines", PRELUDE + "for line in sys.stdin:\n    print(len(line))\n"),
    Hook(
        "leaves-a-child-in-its-group",
        PRELUDE + "import subprocess, time\n"
        "child = (\n"
        "    'import os, signal, sys, time\\n'\n"
        "    'def term(*_):\\n'\n"
        '    \'    open("term.txt", "w").write("SIGTERM")\\n\'\n'
        "    '    sys.exit(0)\\n'\n"
        "    'signal.signal(signal.SIGTERM, term)\\n'\n"
        '    \'open("ready.tmp", "w").write("ready")\\n\'\n'
        '    \'os.rename("ready.tmp", "ready.txt")\\n\'\n'
        "    'time.sleep(60)\\n'\n"
        ")\n"
        "subprocess.Popen([sys.executable, '-c', child], stdout=subprocess.DEVNULL,\n"
        "    stderr=subprocess.DEVNULL)\n"
        "while not os.path.exists('ready.txt'):\n    time.sleep(0.005)\n"
        "print('left a child')\n",
    ),
    Hook(
        "forked-child-exits-later",
        PRELUDE + "import time\npid = os.fork()\nif pid == 0:\n    time.sleep(0.05)\n"
        "    print('child', flush=True)\n    sys.exit(5)\nprint('parent', flush=True)\n",
    ),
]

CORPUS: list[Hook] = [
    *_styles(),
    Hook("harness-emit", _emit(json.dumps({"decision": "block", "reason": "r"}), "warn\n", 0)),
    Hook("harness-emit-exit-2", _emit("", "Dangerous command blocked\n", 2)),
    *EDGES,
]
