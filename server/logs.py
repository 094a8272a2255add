"""structlog set-up: JSON lines by default, a console renderer on a terminal.  Log fields never hold a token
or a hidden game value: connections, tables, seats, seqs and error codes only."""

from __future__ import annotations

import logging
import sys

import structlog


def configure(fmt: str = "auto", level: str = "info") -> None:
    """``fmt``: ``json``, ``console`` or ``auto`` (console when stderr is a terminal)."""
    if fmt == "auto":
        fmt = "console" if sys.stderr.isatty() else "json"
    renderer: structlog.typing.Processor = (
        structlog.dev.ConsoleRenderer() if fmt == "console" else structlog.processors.JSONRenderer()
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelNamesMapping()[level.upper()]),
        # one write per line, newline included (print writes the newline apart): the workers of ``serve --workers
        # N`` share one stderr, and two lines written at once must not run into each other
        logger_factory=structlog.WriteLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )
    # websockets and redis log through the standard library: keep their warnings, in the same stream
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(name)s %(levelname)s %(message)s")
