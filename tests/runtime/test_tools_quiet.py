"""`noOutputExpected`, case by case as Claude Code 2.1.240 answered for the same commands."""

from __future__ import annotations

import pytest

from hookwright.runtime.tools.quiet import no_output_expected

QUIET = [
    "mkdir d1",
    "touch f",
    "mv f g",
    "cp -v g h",
    "rm -rf z",
    "chmod +x g",
    "chown 0 g",
    "chgrp 0 g",
    "ln -s g l",
    "rmdir c",
    "export A=1",
    "unset A",
    "wait",
    "cd",
    "cd ..",
    "mkdir -p sub && cd sub",
    "mkdir b; touch b/x",
    "mkdir c2 || mkdir c3",
    "touch p1 | touch p2",
    "mkdir w1 &",
    "mkdir a5 & touch a6",
    "mkdir a3&&touch a4",
    "mkdir n1\ntouch n2",
    " mkdir lead",
    "mkdir t1;",
    "mkdir\tt9",
    "# a comment\nmkdir x9",
    "touch a2 # comment",
    "mkdir z > /dev/null",
    "mkdir z2 2>&1",
    "mkdir $(echo q)",
    "mkdir $(echo a && echo b)",
    "touch 'a;b'",
    'touch "q|r"',
]
NOT_QUIET = [
    "true",
    ":",
    "echo hi",
    "pwd > f",
    "ls",
    "sleep 0",
    "test -f g",
    "[ -f g ]",
    "git init -q r",
    "sed -i s/a/b/ g",
    "cat g > g2",
    "umask 022",
    "set -e",
    "source /dev/null",
    "declare D=1",
    "readonly R=1",
    "pushd . >/dev/null",
    "truncate -s0 g",
    "exit 0",
    "mkdir c || true",
    "touch x | cat",
    "mkdir a7 & echo hi",
    "chmod 644 g && echo done",
    "mkdir sub && cd sub; exit 0",
    "FOO=1 touch y",
    "'mkdir' q1",
    "\\mkdir q2",
    "/bin/mkdir q3",
    "command mkdir cm",
    "(mkdir s1)",
    "{ mkdir s2; }",
    "echo (",
    "# only a comment",
]


@pytest.mark.parametrize("command", QUIET)
def test_commands_that_print_nothing_are_expected_to(command: str) -> None:
    assert no_output_expected(command)


@pytest.mark.parametrize("command", NOT_QUIET)
def test_any_other_statement_makes_output_expected(command: str) -> None:
    assert not no_output_expected(command)
