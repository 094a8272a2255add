"""The ``hauntd`` command line.  Each subcommand lives in its own module (``COMMANDS``), which adds its options."""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

import redis.connection
import redis.exceptions
from websockets.exceptions import InvalidURI, WebSocketException
from websockets.uri import parse_uri

from engine.registry import games, get_game
from server.embedded import EmbeddedValkeyError
from server.preflight import StoreUnfit
from server.store import Keys

# name -> (module, one-line help).  The module provides ``add_arguments(parser)`` and ``run(args) -> int``.
COMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("server.serve", "run the WebSocket server (embedded Valkey unless --redis-url / REDIS_URL)"),
    "schema": (
        "protocol.schema",
        "print the JSON Schema of the wire protocol, or of one game's actions, events, options and catalog",
    ),
    "bench": ("server.bench", "benchmarks that print JSON figures (engine speed, round-trip latency, bot strength)"),
    "bot": ("clients.bots.runner", "a bot that joins a table as an ordinary player and plays until the game is over"),
    "loadtest": (
        "clients.loadtest",
        "tables of bots playing whole games at once; prints JSON figures, exit status 1 on a leak or any error",
    ),
    "fuzz": ("clients.fuzz", "send hostile frames to a live server and check nothing breaks; prints JSON"),
    "chaos": ("clients.chaos", "bots play while servers, connections and the store are killed; audits the logs"),
    "verify": ("server.verify", "replay finished tables from their logs: seed commitment, events, final state"),
    "tables": (
        "server.tables",
        "list the tables in play in a store, or with --stuck those that cannot move on, and why",
    ),
}

# command (and bench kind) -> examples, shown at the end of its --help
EXAMPLES: dict[str, list[str]] = {
    "serve": [
        "hauntd serve                                   # 127.0.0.1:8765, an embedded Valkey in ./data",
        "hauntd serve --host 0.0.0.0 --workers 4 --data-dir /var/lib/hauntd",
        "hauntd serve --redis-url redis://127.0.0.1:6379/0 --rate 1e6 --burst 1000000   # to be load-tested",
        "hauntd serve --redis-url redis://:PASSWORD@redis:6379/0 --key-prefix staging   # a Redis shared with others",
    ],
    "schema": ["hauntd schema > schema.json", "hauntd schema --game mansion"],
    "bench": ["hauntd bench engine --help", "hauntd bench latency --help", "hauntd bench bots --help"],
    "bench engine": ["hauntd bench engine --game spook --seats 3 --games 1000"],
    "bench latency": [
        "hauntd bench latency --actions 2000                 # a server of its own",
        "hauntd bench latency --url ws://127.0.0.1:8765",
    ],
    "bench bots": [
        "hauntd bench bots --game ghost-at-home --strategy greedy --games 500",
        "hauntd bench bots --game ghost-at-home --options '{\"max_rounds\": 20}'   # shorter games",
    ],
    "bot": [
        "hauntd bot --url ws://127.0.0.1:8765 --table TABLE --strategy greedy",
        "hauntd bot --game ghost-at-home --seats 4 --strategy greedy   # a table of its own, 3 server-run bots",
        "hauntd bot --game mansion --state /var/lib/hauntd-bot/seat.json   # started again: resumes its seat",
    ],
    "loadtest": [
        "hauntd loadtest --spawn --tables 50 --duration 20 > report.json   # a server of its own",
        "hauntd loadtest --url ws://127.0.0.1:8765 --tables 200 --game mix --progress",
        "hauntd loadtest --spawn --tables 1000 --processes 2 --baseline echo --connect-timeout 120",
    ],
    "fuzz": [
        "hauntd fuzz --seconds 60                            # a server and a Valkey of its own",
        "hauntd fuzz --url ws://127.0.0.1:8765 --redis-url redis://127.0.0.1:6379/0 --server-log server.log",
    ],
    "chaos": ["hauntd chaos --tables 20 --duration 120 --kill-every 20 --work-dir chaos-logs"],
    "verify": [
        "hauntd verify --redis-url redis://:PASSWORD@127.0.0.1:6379/0 TABLE1 TABLE2  # embedded: data/valkey.url"
    ],
    "tables": [
        "hauntd tables --stuck --redis-url redis://:PASSWORD@127.0.0.1:6379/0   # embedded: data/valkey.url",
        "hauntd tables --redis-url redis://:PASSWORD@127.0.0.1:6379/0 --key-prefix staging",
    ],
}


class HelpFormatter(argparse.HelpFormatter):
    """argparse's, but an epilog of several lines (the examples) keeps its lines as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" not in text:
            return super()._fill_text(text, width, indent)
        return "\n".join(indent + line for line in text.splitlines())


def _examples(parser: argparse.ArgumentParser, name: str) -> None:
    """``name``'s examples as ``parser``'s epilog, and those of its kinds (``bench engine``, …) as theirs."""
    parser.formatter_class = HelpFormatter
    parser.epilog = "examples:\n" + "\n".join(f"  {line}" for line in EXAMPLES[name])
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for kind, sub in action.choices.items():
                _examples(sub, f"{name} {kind}")


def bounded(
    kind: type[int] | type[float], least: float, most: float = math.inf, *, above: bool = False
) -> Callable[[str], float]:
    """An option's type: a finite number of ``kind`` from ``least`` (or, with ``above``, past it) to ``most``.  A
    negative ``--rate`` or ``--send-queue`` was taken as given, and ``--send-queue 0`` made the queue unbounded."""
    what = "whole number" if kind is int else "number"
    want = (
        f"above {least:g}" if above else f"of {least:g} or more" if most == math.inf else f"from {least:g} to {most:g}"
    )

    def parse(text: str) -> float:
        try:
            number = kind(text)
        except ValueError:
            number = math.nan
        if not (math.isfinite(number) and (number > least if above else number >= least) and number <= most):
            raise argparse.ArgumentTypeError(f"not a {what} {want}: {text!r}")
        return number

    parse.__name__ = what  # argparse names the type in some errors
    return parse


at_least_one = bounded(int, 1)  # ``serve --workers``, ``loadtest --processes``, …
non_negative = bounded(float, 0)  # seconds, rates where 0 means "none" or "never"
positive = bounded(float, 0, above=True)  # seconds, where 0 would mean nothing (a run of no time)


def check_seats(error: Callable[[str], object], game: str, seats: int) -> None:
    """``--seats`` against what ``--game`` seats (every game, for ``mix``), with ``error`` (the parser's) before
    anything runs: ``loadtest --seats 9`` played nothing, each table refused, and ``bench`` ended in a traceback."""
    rules = [get_game(name) for name in (sorted(games()) if game == "mix" else [game])]
    least, most = max(rule.min_seats for rule in rules), min(rule.max_seats for rule in rules)
    if not least <= seats <= most:
        which = "every game" if game == "mix" else game
        error(f"argument --seats: {which} seats {least} to {most} players, not {seats}")


def redis_url(text: str) -> str:
    """An option's type: a URL redis-py can connect with (``--redis-url``; argparse applies it to a default taken
    from ``REDIS_URL`` too), so that an ``http://`` or a bare host name is a usage error, not a traceback from the
    first connection.  The URL is not echoed: it may hold a password."""
    try:
        redis.connection.parse_url(text)  # type: ignore[no-untyped-call]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a Redis URL: {exc}") from None
    return text


def add_key_prefix(parser: argparse.ArgumentParser, what: str = "") -> None:
    """``--key-prefix`` (``serve``, and the tools that read its store): the deployment's name in the store."""
    parser.add_argument(
        "--key-prefix",
        type=_key_prefix,
        default=os.environ.get("HAUNTD_KEY_PREFIX", ""),
        metavar="NAME",
        help=what
        or "begin every key and pub/sub channel in the store with NAME: (letters, digits, _ . -), so deployments "
        "sharing one Redis, staging and production say, never meet; the same NAME for every server of one "
        "deployment (default: $HAUNTD_KEY_PREFIX; unset: none)",
    )


def add_store_url(parser: argparse.ArgumentParser) -> None:
    """``--redis-url`` and ``--key-prefix`` of the tools that read a server's store (``verify``, ``tables``)."""
    from server.app import env_redis_url

    parser.add_argument(
        "--redis-url",
        type=redis_url,
        default=env_redis_url(),
        help="the store the server uses (default: REDIS_URL; the embedded store's URL is in valkey.url in the "
        "server's --data-dir)",
    )
    add_key_prefix(parser, "the server's --key-prefix (default: $HAUNTD_KEY_PREFIX; unset: none)")


def _key_prefix(text: str) -> str:
    try:
        Keys.named(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def ws_url(text: str) -> str:
    """An option's type: a ``ws://`` or ``wss://`` URL (``--url``), so that ``ws://host:99999`` is a usage error,
    not a ``ValueError`` traceback from the first connection."""
    try:
        parse_uri(text)
    except (InvalidURI, ValueError) as exc:
        raise argparse.ArgumentTypeError(f"not a WebSocket URL such as ws://127.0.0.1:8765: {exc}") from None
    return text


def json_object(text: str) -> dict[str, Any]:
    """An option's type: a JSON object (a game's ``--options``, for ``bot`` and ``bench bots``)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"not a JSON object: {text!r}")
    return value


def said(exc: BaseException) -> str:
    """What ``exc`` says, or its type's name when it says nothing (a reset connection: ``ConnectionResetError()``,
    say, which printed as an empty line)."""
    return str(exc) or type(exc).__name__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hauntd",
        description="hauntd: a real-time WebSocket game server for hidden-information tabletop games.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (module_name, help_text) in COMMANDS.items():
        command = sub.add_parser(name, help=help_text, description=help_text)
        module = importlib.import_module(module_name)
        module.add_arguments(command)
        _examples(command, name)
        command.set_defaults(_module=module, _usage_error=command.error)
    return parser


_signals: list[str] = []  # SIGTERMs taken for Ctrl-Cs


def _as_ctrl_c(signum: int, frame: object) -> None:
    """SIGTERM as a Ctrl-C (to asyncio too, which cancels its main task rather than raise in whatever task runs):
    what the command started is stopped on the way out (it died at once, leaving the server of ``fuzz`` or
    ``bench latency`` running, and their temporary directories)."""
    _signals.append(signal.Signals(signum).name)
    signal.raise_signal(signal.SIGINT)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    args.argv = sys.argv[1:] if argv is None else argv  # (``serve --workers N`` starts its workers with it)
    if argv is None and args.command != "serve":  # (the command line's process, not a caller's; serve has its own)
        signal.signal(signal.SIGTERM, _as_ctrl_c)
        if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:  # started with ``&`` by a script: the SIGINT that
            # SIGTERM raises would be dropped, and the command run on
            signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        code: int = args._module.run(args)
    except (OSError, WebSocketException, redis.exceptions.ConnectionError, EmbeddedValkeyError, StoreUnfit) as exc:
        # a port already taken, a server or a store out of reach, a bad URL, a data dir the embedded Valkey cannot
        # use, a store that cannot keep tables: the user's to fix, so one line
        why = said(exc)
        if isinstance(exc, redis.exceptions.AuthenticationError):  # Redis's words say nothing of where it goes
            why = f"the store did not let us in: {why} (its password goes in the URL: redis://:PASSWORD@HOST:PORT/0)"
        print(f"hauntd {args.command}: {why}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM where the command does not stop by itself (serve does; loadtest
        # reports what it measured)
        name = _signals[-1] if _signals else "SIGINT"
        print(f"hauntd {args.command}: interrupted by {name}, before its report", file=sys.stderr)
        return 128 + signal.Signals[name]
    return code


if __name__ == "__main__":
    sys.exit(main())
