"""What common programs do to files and the network, read from their words.

`command_actions` turns one simple command (its words, the program first) into actions: a
``ProcExec`` for the command, the prefixes it runs through (``env``, ``sudo``, ``xargs``,
``nice``, ``timeout``, ...) looked through, and the file and network actions of the programs
in `PROGRAMS`. A program not in the table is a ``ProcExec`` only (plus a ``NetFetch`` for each
URL among its words).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import Final

from hookwright.core.actions import FileDelete, FileRead, FileWrite, ProcExec
from hookwright.core.code_actions import code_actions, url_actions
from hookwright.core.shell_scope import NO_STDIN, Scope, Stdin, Word

__all__ = ["PROGRAMS", "command_actions"]

Reader = Callable[[list[Word], Scope, Stdin], None]
_FROM_STDIN: Final = Word("{stdin}", dynamic=True)


def command_actions(words: list[Word], scope: Scope, stdin: Stdin) -> None:
    """Append the actions of one simple command."""
    scope.out.append(ProcExec(tuple(word.text for word in words), opaque=words[0].dynamic))
    if words[0].dynamic:
        return
    program = posixpath.basename(words[0].text)
    prefix = _PREFIXES.get(program)
    if prefix is not None:
        inner = prefix(words[1:])
        if inner:
            command_actions(inner, scope, stdin)
        return
    reader = PROGRAMS.get(program)
    if reader is None and program.startswith("python"):
        reader = PROGRAMS["python"]
    if reader is not None:
        reader(words[1:], scope, stdin)
    for word in words[1:]:
        if not word.dynamic and word.text.startswith(("http://", "https://")):
            scope.out.extend(url_actions(word.text))


def operands(args: list[Word], takes_value: frozenset[str] = frozenset()) -> list[Word]:
    """The words that are not options: options start with ``-`` (until ``--``); those in
    `takes_value` eat the next word unless written ``--opt=value`` or ``-Xvalue``."""
    found: list[Word] = []
    options = True
    skip = False
    for word in args:
        text = word.text
        if skip:
            skip = False
        elif options and text == "--":
            options = False
        elif options and text.startswith("-") and len(text) > 1 and not word.dynamic:
            skip = text in takes_value
        else:
            found.append(word)
    return found


# Prefixes: the command they run ---------------------------------------------------------------


def _after_options(takes_value: frozenset[str]) -> Callable[[list[Word]], list[Word]]:
    def inner(args: list[Word]) -> list[Word]:
        skip = False
        for index, word in enumerate(args):
            text = word.text
            if skip:
                skip = False
            elif text == "--":
                return args[index + 1 :]
            elif text.startswith("-") and len(text) > 1:
                skip = text in takes_value
            elif "=" in text and not text.startswith("="):
                continue
            else:
                return args[index:]
        return []

    return inner


def _xargs(args: list[Word]) -> list[Word]:
    """The command xargs runs: with ``-I R`` (or ``-iR``) each word holding R gets a line of
    the input, otherwise the input lines are added at the end."""
    replace = None
    for index, word in enumerate(args):
        text = word.text
        if text == "-I" and index + 1 < len(args):
            replace = args[index + 1].text
        elif text.startswith(("-I", "-i")) and len(text) > 2:
            replace = text[2:]
        elif text == "-i":
            replace = "{}"
    inner = _after_options(frozenset({"-I", "-L", "-n", "-P", "-s", "-d", "-E", "-a"}))(args)
    if not inner:
        return [Word("echo"), _FROM_STDIN]
    if replace is None:
        return [*inner, _FROM_STDIN]
    return [_FROM_STDIN if replace in word.text else word for word in inner]


def _timeout(args: list[Word]) -> list[Word]:
    rest = _after_options(frozenset({"-s", "-k", "--signal", "--kill-after"}))(args)
    return rest[1:]


_PREFIXES: Final[dict[str, Callable[[list[Word]], list[Word]]]] = {
    "env": _after_options(frozenset({"-u", "-C", "-S", "--unset", "--chdir"})),
    "sudo": _after_options(frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"})),
    "doas": _after_options(frozenset({"-u", "-C"})),
    "nice": _after_options(frozenset({"-n"})),
    "ionice": _after_options(frozenset({"-c", "-n", "-p"})),
    "nohup": _after_options(frozenset()),
    "time": _after_options(frozenset({"-f", "-o"})),
    "command": _after_options(frozenset()),
    "exec": _after_options(frozenset({"-a"})),
    "builtin": _after_options(frozenset()),
    "stdbuf": _after_options(frozenset({"-i", "-o", "-e"})),
    "xargs": _xargs,
    "timeout": _timeout,
}


# Programs -------------------------------------------------------------------------------------


def _each(kind: type[FileRead | FileWrite | FileDelete], takes: frozenset[str]) -> Reader:
    """A program whose operands are all files it reads, writes or deletes."""

    def reader(args: list[Word], scope: Scope, stdin: Stdin) -> None:
        for word in operands(args, takes):
            scope.file(kind, word)

    return reader


def _after_first(kind: type[FileRead | FileWrite], takes: frozenset[str]) -> Reader:
    """A program whose first operand is not a file (a mode, an owner, a pattern)."""

    def reader(args: list[Word], scope: Scope, stdin: Stdin) -> None:
        if any(word.text.startswith(("-e", "-f", "--regexp", "--file")) for word in args):
            words = operands(args, takes)
        else:
            words = operands(args, takes)[1:]
        for word in words:
            scope.file(kind, word)

    return reader


def _copy(remove_source: bool) -> Reader:
    """cp, mv, install, ln: the sources read (moved: deleted), the target written, and in a
    target folder the file of each source's name."""

    def reader(args: list[Word], scope: Scope, stdin: Stdin) -> None:
        target = _target_directory(args)
        words = operands(args, frozenset({"-t", "-S", "--target-directory", "-m", "-o", "-g"}))
        if target is None:
            if len(words) < 2:
                return
            target, words = words[-1], words[:-1]
        scope.file(FileWrite, target)
        for source in words:
            scope.file(FileDelete if remove_source else FileRead, source)
            name = posixpath.basename(source.text.rstrip("/")) or source.text
            dynamic = target.dynamic or source.dynamic
            scope.file(FileWrite, Word(posixpath.join(target.text, name), dynamic))

    return reader


def _target_directory(args: list[Word]) -> Word | None:
    for index, word in enumerate(args):
        if word.text in ("-t", "--target-directory") and index + 1 < len(args):
            return args[index + 1]
        if word.text.startswith("--target-directory="):
            return Word(word.text.partition("=")[2], word.dynamic)
    return None


def _in_place(short: str, long: str) -> Reader:
    """sed and perl: the files are written with ``-i`` (alone or among short options), read
    otherwise; the script is the first operand unless given with ``-e``/``-f``/``-E``."""

    def reader(args: list[Word], scope: Scope, stdin: Stdin) -> None:
        in_place = any(_has_short(word.text, short) or word.text.startswith(long) for word in args)
        scripted = any(word.text in ("-e", "-E", "-f", "--expression", "--file") for word in args)
        words = operands(args, frozenset({"-e", "-E", "-f", "-l", "--expression", "--file"}))
        if not scripted:
            words = words[1:]
        for word in words:
            scope.file(FileWrite if in_place else FileRead, word)

    return reader


def _has_short(text: str, letter: str) -> bool:
    """Whether `text` is a bundle of short options holding `letter` (``-i``, ``-pi``,
    ``-i.bak``, ``-pie``)."""
    if not text.startswith("-") or text.startswith("--"):
        return False
    head = text[1:].split(".", 1)[0]
    return letter in head and head.isalnum()


def _shell(args: list[Word], scope: Scope, stdin: Stdin) -> None:
    """bash/sh/zsh: ``-c SCRIPT`` and a heredoc are read; a script file is read; a script
    from a pipe is opaque."""
    for index, word in enumerate(args):
        text = word.text
        if text.startswith("-") and not text.startswith("--") and "c" in text[1:]:
            rest = args[index + 1 :]
            if not rest or rest[0].dynamic:
                scope.out.append(ProcExec(tuple(w.text for w in args), opaque=True))
            else:
                scope.nested(rest[0].text)
            return
    files = operands(args, frozenset({"-o", "-O", "--rcfile", "--init-file"}))
    if files:
        scope.file(FileRead, files[0])
    elif stdin.script is not None:
        scope.nested(stdin.script)
    elif stdin.piped:
        scope.out.append(ProcExec(("sh", "<stdin>"), opaque=True))


def _eval(args: list[Word], scope: Scope, stdin: Stdin) -> None:
    if any(word.dynamic for word in args):
        scope.out.append(ProcExec(("eval", *(word.text for word in args)), opaque=True))
    else:
        scope.nested(" ".join(word.text for word in args))


def _interpreter(flag: str) -> Reader:
    """python and node: the code of ``-c``/``-e`` or of a heredoc is scanned; a script file
    is read; a module (``-m``) is neither."""

    def reader(args: list[Word], scope: Scope, stdin: Stdin) -> None:
        texts = [word.text for word in args]
        if flag in texts[:-1]:
            code_actions(texts[texts.index(flag) + 1], scope)
            return
        if "-m" in texts:
            return
        files = [word for word in operands(args, frozenset({"-W", "-X", "-r"})) if word.text != "-"]
        if files:
            scope.file(FileRead, files[0])
        elif stdin.script is not None:
            code_actions(stdin.script, scope)

    return reader


def _curl(args: list[Word], scope: Scope, stdin: Stdin) -> None:
    outputs = ("-o", "--output", "-O", "--output-document", "-T", "--upload-file")
    for index, word in enumerate(args[:-1]):
        if word.text in outputs[:4] and not args[index + 1].text.startswith("http"):
            scope.file(FileWrite, args[index + 1])
        elif word.text in outputs[4:]:
            scope.file(FileRead, args[index + 1])


def _dd(args: list[Word], scope: Scope, stdin: Stdin) -> None:
    for word in args:
        key, _, value = word.text.partition("=")
        if key in ("of", "if") and value:
            scope.file(FileWrite if key == "of" else FileRead, Word(value, word.dynamic))


def _cd(args: list[Word], scope: Scope, stdin: Stdin) -> None:
    words = operands(args)
    scope.change_dir(words[0] if words else None)


def _find(args: list[Word], scope: Scope, stdin: Stdin) -> None:
    """find: the roots are read; ``-delete`` deletes, and ``-exec CMD {} ;`` runs CMD on,
    ``ROOT/**`` (somewhere under the first root)."""
    roots: list[Word] = []
    for word in args:
        if word.text.startswith(("-", "(", "!")):
            break
        roots.append(word)
    for root in roots or [Word(".")]:
        scope.file(FileRead, root)
    first = roots[0] if roots else Word(".")
    under = Word(first.text.rstrip("/") + "/**", first.dynamic)
    texts = [word.text for word in args]
    if "-delete" in texts:
        scope.file(FileDelete, under)
    for index, text in enumerate(texts):
        if text in ("-exec", "-execdir", "-ok", "-okdir") and index + 1 < len(args):
            end = next((i for i in range(index + 1, len(texts)) if texts[i] in (";", "+")), None)
            inner = [under if w.text == "{}" else w for w in args[index + 1 : end]]
            if inner:
                scope.read_command(inner, scope, NO_STDIN)


_NO_VALUES: Final = frozenset[str]()
_COUNTS: Final = frozenset({"-n", "-c", "--lines", "--bytes"})
_GREP: Final = frozenset({"-e", "-f", "-m", "-A", "-B", "-C", "--include", "--exclude", "-g"})

PROGRAMS: Final[dict[str, Reader]] = {
    "tee": _each(FileWrite, _NO_VALUES),
    "touch": _each(FileWrite, frozenset({"-d", "-r", "-t"})),
    "mkdir": _each(FileWrite, frozenset({"-m"})),
    "truncate": _each(FileWrite, frozenset({"-s", "-r"})),
    "chmod": _after_first(FileWrite, _NO_VALUES),
    "chown": _after_first(FileWrite, _NO_VALUES),
    "chgrp": _after_first(FileWrite, _NO_VALUES),
    "rm": _each(FileDelete, _NO_VALUES),
    "rmdir": _each(FileDelete, _NO_VALUES),
    "unlink": _each(FileDelete, _NO_VALUES),
    "shred": _each(FileDelete, frozenset({"-n", "-s"})),
    "cp": _copy(remove_source=False),
    "install": _copy(remove_source=False),
    "ln": _copy(remove_source=False),
    "rsync": _copy(remove_source=False),
    "mv": _copy(remove_source=True),
    "dd": _dd,
    "sed": _in_place("i", "--in-place"),
    "perl": _in_place("i", "--in-place"),
    "bash": _shell,
    "sh": _shell,
    "zsh": _shell,
    "dash": _shell,
    "ksh": _shell,
    "eval": _eval,
    "python": _interpreter("-c"),
    "node": _interpreter("-e"),
    "curl": _curl,
    "wget": _curl,
    "cd": _cd,
    "pushd": _cd,
    "find": _find,
    "grep": _after_first(FileRead, _GREP),
    "egrep": _after_first(FileRead, _GREP),
    "fgrep": _after_first(FileRead, _GREP),
    "rg": _after_first(FileRead, _GREP),
    "jq": _after_first(FileRead, frozenset({"--arg", "--argjson", "-f"})),
    "source": _each(FileRead, _NO_VALUES),
    ".": _each(FileRead, _NO_VALUES),
    **{
        name: _each(FileRead, _COUNTS)
        for name in (
            "cat",
            "head",
            "tail",
            "less",
            "more",
            "wc",
            "sort",
            "uniq",
            "diff",
            "cmp",
            "nl",
            "od",
            "xxd",
            "strings",
            "md5sum",
            "sha1sum",
            "sha256sum",
            "base64",
            "file",
            "stat",
            "ls",
            "du",
            "tree",
        )
    },
}
