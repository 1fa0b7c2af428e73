"""The hook program every conformance case runs: log what was read, then act as told.

argv[1] is the hook's label. The raw stdin bytes, the working directory and the label are
appended as one JSON line to `$HW_CONF_LOG`; the action for the label comes from the JSON
file `$HW_CONF_ACTIONS` (`stdout`, `stderr`, `exit`, after `delay` seconds). Standard library
only: it runs under both agents with whatever `python3` the machine has.
"""

import json
import os
import sys
import time


def main() -> int:
    label = sys.argv[1]
    raw = sys.stdin.buffer.read()
    record = {"label": label, "stdin": raw.decode("utf-8", "replace"), "cwd": os.getcwd()}
    with open(os.environ["HW_CONF_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps(record) + "\n")
    with open(os.environ["HW_CONF_ACTIONS"], encoding="utf-8") as handle:
        action = json.load(handle).get(label, {})
    time.sleep(float(action.get("delay", 0)))
    sys.stdout.write(action.get("stdout", ""))
    sys.stderr.write(action.get("stderr", ""))
    return int(action.get("exit", 0))


if __name__ == "__main__":
    sys.exit(main())
