"""A module's logger, made when it first logs.

`logging` (with the `traceback`, `string` and `textwrap` it loads) is about 5 % of the work of
a process that answers one event and logs nothing, so the modules on that path hold a
`LazyLogger` instead of a `logging.Logger`: the same logger (`logging.getLogger(name)`), got
on the first message, and the record names the caller's line, not this module's.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import logging
    from typing import Any


class LazyLogger:
    """`logging.getLogger(name)` for the messages hookwright's engine logs: warnings, and
    errors with their exception."""

    __slots__ = ("_logger", "name")

    def __init__(self, name: str) -> None:
        self.name = name
        self._logger: logging.Logger | None = None

    @property
    def logger(self) -> logging.Logger:
        if self._logger is None:
            import logging

            self._logger = logging.getLogger(self.name)
        return self._logger

    def warning(self, msg: object, *args: object, **kwargs: Any) -> None:
        kwargs["stacklevel"] = kwargs.get("stacklevel", 1) + 1
        self.logger.warning(msg, *args, **kwargs)

    def error(self, msg: object, *args: object, **kwargs: Any) -> None:
        kwargs["stacklevel"] = kwargs.get("stacklevel", 1) + 1
        self.logger.error(msg, *args, **kwargs)

    def exception(self, msg: object, *args: object, **kwargs: Any) -> None:
        """Within an `except` block, as `logging.Logger.exception`."""
        kwargs["stacklevel"] = kwargs.get("stacklevel", 1) + 1
        self.logger.exception(msg, *args, **kwargs)
