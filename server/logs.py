"""structlog set-up: JSON lines by default, a console renderer on a terminal.  Log fields never hold a token
or a hidden game value: connections, tables, seats, seqs and error codes only; a private table by a prefix of its
id, which is its invitation."""

from __future__ import annotations

import logging
import sys

import structlog
from structlog.typing import EventDict, WrappedLogger

from server.ids import PUBLIC_ID_CHARS

INVITATION_SHOWN = 6
"""Characters of a longer table id that a log line keeps."""


def veil_invitations(_logger: WrappedLogger, _method: str, event: EventDict) -> EventDict:
    """A private table's id is its invitation: whoever holds it may join or watch (README, Server and protocol).
    Log lines are read by operators and shipped to log services, so they name a table id longer than a public
    one by its first six characters and "...": enough to find the table (``SCAN MATCH``), 92 bits short of joining;
    in every other field of the line too (a failure's message, ``TooNew``'s, names its table)."""
    for key in ("table", "rematch_of"):
        value = event.get(key)
        if isinstance(value, str) and len(value) > PUBLIC_ID_CHARS:
            shown = value[:INVITATION_SHOWN] + "..."
            for field, text in event.items():
                if isinstance(text, str) and value in text:
                    event[field] = text.replace(value, shown)
    return event


def configure(fmt: str = "auto", level: str = "info") -> None:
    """``fmt``: ``json``, ``console`` or ``auto`` (console when stderr is a terminal).  What websockets, redis and
    asyncio log through the standard library (warnings and worse) goes through the same processors, so every
    line of a JSON log is JSON, with its ``logger``, and carries the context (a worker's ``worker``)."""
    if fmt == "auto":
        fmt = "console" if sys.stderr.isatty() else "json"
    renderer: structlog.typing.Processor = (
        structlog.dev.ConsoleRenderer() if fmt == "console" else structlog.processors.JSONRenderer()
    )
    shared: list[structlog.typing.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        veil_invitations,
    ]
    structlog.configure(
        processors=[*shared, structlog.processors.format_exc_info, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelNamesMapping()[level.upper()]),
        # one write per line, newline included (print writes the newline apart): the workers of ``serve --workers
        # N`` share one stderr, and two lines written at once must not run into each other
        logger_factory=structlog.WriteLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[*shared, structlog.stdlib.add_logger_name],
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.format_exc_info,
                renderer,
            ],
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
