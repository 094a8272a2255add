"""The ``hauntd`` command line as a new user meets it: ``--help`` and a mistyped option."""

import argparse
import os
import shlex
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis.exceptions

from clients import chaos, fuzz, loadtest
from server import bench, latency, verify
from server.cli import EXAMPLES, build_parser, main
from server.ids import new_table_id
from server.launch import ROOT, ServerProcess


def closed_port() -> int:
    """A port nothing listens on (the probe that held it is closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def options(parser: argparse.ArgumentParser, command: str = "hauntd") -> Iterator[tuple[str, argparse.Action]]:
    """Every option of every (sub)command, with the command line that names it."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from options(sub, f"{command} {name}")
        elif action.option_strings:
            yield command, action


def test_every_option_with_a_default_states_it_in_its_help() -> None:
    """``hauntd serve --help`` showed ``--log-level`` with no word of its default, which the README had to tell."""
    silent = [
        f"{command} {action.option_strings[0]}"
        for command, action in options(build_parser())
        if action.default not in (None, False, [], argparse.SUPPRESS) and "default" not in (action.help or "")
    ]
    assert silent == []


def test_every_command_shows_examples_that_it_takes(capsys: pytest.CaptureFixture[str]) -> None:
    """No ``--help`` showed a single command line; now each ends with examples, and each example parses."""
    commands = {command for command, _ in options(build_parser())} - {"hauntd"}
    assert {f"hauntd {name}" for name in EXAMPLES} == commands
    for name, examples in EXAMPLES.items():
        with pytest.raises(SystemExit):
            build_parser().parse_args([*name.split(), "--help"])
        assert "examples:\n  hauntd " + name in capsys.readouterr().out, name
        for example in examples:
            words = shlex.split(example.split("#")[0].split(">")[0])
            if words[-1] != "--help":
                assert build_parser().parse_args(words[1:]).command == name.split()[0], example


def test_bench_bots_refuses_an_unknown_strategy(capsys: pytest.CaptureFixture[str]) -> None:
    """A misspelt ``--strategy`` ended ``hauntd bench bots`` in a ``KeyError`` traceback, not a usage error."""
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(["bench", "bots", "--strategy", "gredy"])
    assert exit_.value.code == 2 and "invalid choice: 'gredy'" in capsys.readouterr().err


def test_schema_refuses_a_game_there_is_not(capsys: pytest.CaptureFixture[str]) -> None:
    """``hauntd schema --game mansoin`` ended in a ``KeyError`` traceback, not a usage error naming the games."""
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(["schema", "--game", "mansoin"])
    assert exit_.value.code == 2 and "invalid choice: 'mansoin'" in capsys.readouterr().err


NOBODY = f"127.0.0.1:{closed_port()}"


@pytest.mark.parametrize(
    "command",
    [
        ["bot", "--url", f"ws://{NOBODY}", "--table", "abc"],
        ["loadtest", "--url", f"ws://{NOBODY}", "--tables", "1", "--duration", "1"],
        ["fuzz", "--url", f"ws://{NOBODY}", "--seconds", "1"],
        ["bench", "latency", "--url", f"ws://{NOBODY}", "--actions", "5"],
        ["verify", "--redis-url", f"redis://{NOBODY}", "sometable"],
        ["tables", "--redis-url", f"redis://{NOBODY}"],
        ["serve", "--port", "0", "--redis-url", f"redis://{NOBODY}", "--store-wait", "0"],
    ],
    ids=lambda command: " ".join(command[:2]),
)
def test_a_server_or_store_out_of_reach_is_one_line_not_a_traceback(command: list[str]) -> None:
    """Only ``hauntd bot`` said so in a line; the others ended in a traceback, for what is the user's to fix: a
    mistyped address, a server or a store not started yet."""
    done = subprocess.run(
        [sys.executable, "-m", "server.cli", *command], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert done.returncode == 1, done.stderr
    last = done.stderr.splitlines()[-1]
    assert last.startswith(f"hauntd {command[0]}: ") and "Traceback" not in done.stderr, done.stderr


URL_COMMANDS = [["bot", "--table", "abc"], ["loadtest"], ["fuzz"], ["bench", "latency"]]


@pytest.mark.parametrize("command", URL_COMMANDS, ids=lambda command: command[0])
@pytest.mark.parametrize(
    ("url", "says"), [("ws://127.0.0.1:99999", "Port out of range"), ("http://127.0.0.1:8765", "scheme isn't ws")]
)
def test_a_url_that_is_none_is_a_usage_error(
    command: list[str], url: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--url ws://127.0.0.1:99999`` ended in a ``ValueError`` traceback from the first connection."""
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args([*command, "--url", url])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "argument --url: not a WebSocket URL such as ws://127.0.0.1:8765: " in err
    assert says in err, err


def test_a_failure_that_says_nothing_is_named_by_its_type(server: ServerProcess) -> None:
    """``wss://`` to a server without TLS: the connection is reset, ``ConnectionResetError()`` says nothing, and
    the command printed "hauntd bot: " and no more."""
    command = [sys.executable, "-m", "server.cli", "bot", "--table", "abc", "--url", "wss" + server.url[2:]]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 1 and done.stderr == "hauntd bot: ConnectionResetError\n", done.stderr


@pytest.mark.parametrize(
    ("command", "says"),
    [
        (["loadtest", "--tables", "0"], "argument --tables: not a whole number of 1 or more: '0'"),
        (["loadtest", "--duration", "nan"], "argument --duration: not a number above 0: 'nan'"),  # (it hung)
        (["loadtest", "--game-timeout", "0"], "argument --game-timeout: not a number above 0: '0'"),
        (["loadtest", "--seats", "9"], "argument --seats: mansion seats 2 to 6 players, not 9"),
        (["loadtest", "--seats", "5", "--game", "mix"], "argument --seats: every game seats 2 to 4 players, not 5"),
        (["chaos", "--kill-every", "0"], "argument --kill-every: not a number above 0: '0'"),  # (it hung)
        (["chaos", "--drop-every", "0"], "argument --drop-every: not a number above 0: '0'"),
        (["chaos", "--seats", "1"], "argument --seats: every game seats 2 to 4 players, not 1"),
        (["fuzz", "--seconds", "-1"], "argument --seconds: not a number above 0: '-1'"),
        (["fuzz", "--workers", "0"], "argument --workers: not a whole number of 1 or more: '0'"),
        (["bench", "engine", "--games", "-1"], "argument --games: not a whole number of 1 or more: '-1'"),
        (["bench", "engine", "--seats", "9"], "hauntd bench engine: error: argument --seats: mansion seats 2 to 6"),
        (["bench", "bots", "--game", "spook", "--seats", "5"], "argument --seats: spook seats 1 to 4 players, not 5"),
        (["bench", "latency", "--actions", "0"], "argument --actions: not a whole number of 1 or more: '0'"),
        (["bench", "latency", "--seats", "7"], "hauntd bench latency: error: argument --seats: mansion seats 2 to 6"),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else "",
)
def test_numbers_the_command_cannot_run_with_are_a_usage_error(
    command: list[str], says: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run of no time, no table, a game's impossible seat count or a harm every 0 s: each ran to a traceback,
    a report of nothing, or no end (``--duration nan``, ``--kill-every 0``); now none gets as far as running."""
    for module, runner in [
        (loadtest, "loadtest"), (chaos, "chaos"), (fuzz, "_fuzz"), (bench, "bench_engine"), (bench, "bench_bots"),
        (latency, "bench_latency"),
    ]:  # fmt: skip
        monkeypatch.setattr(module, runner, lambda *args, **kwargs: pytest.fail("it ran"))
    with pytest.raises(SystemExit) as exit_:
        main([*command, *(["--url", f"ws://{NOBODY}"] if command[0] in ("loadtest", "fuzz") else [])])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and says in err, err


def test_serve_on_a_port_already_taken_says_so_in_one_line(tmp_path: Path) -> None:
    """``make run`` while another server holds 8765 printed a traceback ending in ``address already in use``."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = str(holder.getsockname()[1])
        command = [sys.executable, "-m", "server.cli", "serve", "--port", port, "--data-dir", str(tmp_path)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.splitlines()[-1].startswith("hauntd serve: ") and "address already in use" in done.stderr


def test_table_ids_are_never_read_as_options() -> None:
    """One table id in 64 began with "-" (base64url), and ``hauntd verify -N0CENNN`` stopped at "unrecognized
    arguments" (as did ``hauntd bot --table``); ids are now drawn again until they do not."""
    ids = [new_table_id(private) for private in (False, True) for _ in range(3000)]
    assert not [table for table in ids if table.startswith("-")]
    assert {len(table) for table in ids} == {8, 22}  # 48 and 128 random bits
    parsed = build_parser().parse_args(["verify", *ids[:50]])
    assert parsed.tables == ids[:50]


@pytest.mark.parametrize(
    "command",
    [["serve"], ["verify", "sometable"], ["tables"], ["fuzz", "--url", "ws://127.0.0.1:1"], ["chaos"]],
    ids=lambda command: command[0],
)
@pytest.mark.parametrize("url", ["http://:hunter2@127.0.0.1:6379", "127.0.0.1:6379", "redis://:hunter2@host:port"])
def test_a_redis_url_that_is_none_is_a_usage_error(
    command: list[str], url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``hauntd serve --redis-url http://…`` (or a bare ``host:port``) ended in a ``ValueError`` traceback from
    redis-py, after the server had logged its start; now argparse refuses it, without echoing the password."""
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args([*command, "--redis-url", url])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "argument --redis-url: not a Redis URL" in err, err
    assert "hunter2" not in err


def test_a_redis_url_from_the_environment_is_checked_too(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``REDIS_URL=localhost:6379 hauntd serve`` failed the same way: the environment's URL is the default."""
    monkeypatch.setenv("REDIS_URL", "localhost:6379")
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(["serve"])
    assert exit_.value.code == 2 and "not a Redis URL" in capsys.readouterr().err
    monkeypatch.setenv("REDIS_URL", "redis://localhost:6379/0")
    assert build_parser().parse_args(["serve"]).redis_url == "redis://localhost:6379/0"


@pytest.mark.parametrize(
    ("option", "bad"),
    [
        ("--port", "-1"),
        ("--port", "70000"),
        ("--rate", "0"),
        ("--rate", "-1"),
        ("--rate", "nan"),
        ("--burst", "0"),
        ("--max-tables", "0"),
        ("--max-frame-bytes", "-1"),
        ("--send-queue", "0"),
        ("--send-timeout", "0"),
        ("--send-timeout", "inf"),
        ("--max-connections-per-ip", "-1"),
        ("--tables-per-minute", "-1"),
        ("--open-tables-per-ip", "-1"),
        ("--abandoned-after", "0"),
        ("--abandoned-after", "86401"),
        ("--idle-timeout", "-5"),
        ("--idle-timeout", "inf"),
        ("--away-grace", "-1"),
    ],
)
def test_serve_refuses_an_absurd_limit(option: str, bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Every one of these was taken as given: the server started, and refused every message (``--rate 0``), cut
    every frame (``--max-frame-bytes -1``), queued without bound for a client that stops reading
    (``--send-queue 0``: an unbounded ``asyncio.Queue``) or died at the bind in an ``OverflowError`` traceback
    (``--port 70000``)."""
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(["serve", option, bad])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and f"argument {option}: not a " in err, err


def test_serve_takes_the_limits_at_their_edges() -> None:
    """0 still means "no cap" or "never" where the help says so, and port 0 "any"."""
    edges = ["--port", "0", "--max-connections-per-ip", "0", "--tables-per-minute", "0", "--idle-timeout", "0"]
    edges += ["--open-tables-per-ip", "0", "--abandoned-after", "86400"]
    args = build_parser().parse_args(["serve", *edges, "--away-grace", "0", "--rate", "0.5", "--send-queue", "1"])
    assert (args.port, args.max_connections_per_ip, args.idle_timeout, args.rate, args.send_queue) == (0, 0, 0, 0.5, 1)
    assert (args.open_tables_per_ip, args.abandoned_after) == (0, 86400)


def test_an_embedded_valkey_that_cannot_start_is_one_line_with_its_reason(tmp_path: Path) -> None:
    """A damaged append-only file (or a Valkey still running on the data dir) ended ``hauntd serve`` in a
    ``RuntimeError`` traceback that only pointed at valkey.log; now one line gives the log's last word."""
    (tmp_path / "appendonlydir").mkdir()
    (tmp_path / "appendonlydir" / "appendonly.aof.manifest").write_text("not a manifest\n")
    command = [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--data-dir", str(tmp_path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    last = done.stderr.splitlines()[-1]
    assert last.startswith("hauntd serve: embedded Valkey exited at start: ") and "manifest" in last, last


def test_a_data_dir_that_is_a_file_says_so(tmp_path: Path) -> None:
    """``--data-dir`` naming a file said only ``[Errno 17] File exists``."""
    (tmp_path / "file").write_text("")
    command = [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--data-dir", str(tmp_path / "file")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "is not a directory: give --data-dir a directory" in done.stderr.splitlines()[-1]


def test_a_data_dir_of_another_user_is_refused(tmp_path: Path) -> None:
    """A ``--data-dir`` another user owns and all may write (``/tmp``, say) was taken as it was: the server wrote
    ``valkey.url``, the store's password, readable by all, and the store's files went where that user reads them."""
    if os.geteuid() == 0:
        theirs = tmp_path / "theirs"
        theirs.mkdir(mode=0o777)
        theirs.chmod(0o1777)
        os.chown(theirs, 65534, 65534)  # (nobody's)
    else:
        theirs = Path("/tmp")  # (root's)
    command = [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--data-dir", str(theirs)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "belongs to another user" in done.stderr.splitlines()[-1]
    if os.geteuid() == 0:
        assert list(theirs.iterdir()) == []  # (nothing written there)


def test_a_store_that_wants_a_password_says_where_it_goes(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Against a Redis with ``requirepass``, ``hauntd serve --redis-url redis://host:6379/0`` said only "HELLO must
    be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used…"."""

    def refused(args: argparse.Namespace) -> int:
        raise redis.exceptions.AuthenticationError("HELLO must be called with the client already authenticated")

    monkeypatch.setattr(verify, "run", refused)
    assert main(["verify", "--redis-url", "redis://127.0.0.1:6379/0", "sometable"]) == 1
    line = capsys.readouterr().err.strip()
    assert line.startswith("hauntd verify: the store did not let us in: HELLO must be called") and "\n" not in line
    assert "redis://:PASSWORD@HOST:PORT/0" in line


@pytest.mark.parametrize(
    "origin",
    ["https://play.example.org/", "play.example.org", "https://play.example.org:443", "https://Play.example.org"],
)
def test_an_allowed_origin_no_browser_sends_is_a_usage_error(origin: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``--allowed-origin https://play.example.org/`` (a slash at the end, as copied from the address bar) was taken,
    and every browser got HTTP 403: they send ``https://play.example.org``, compared as text."""
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(["serve", "--allowed-origin", origin])
    assert exit_.value.code == 2 and "argument --allowed-origin: " in capsys.readouterr().err


def test_allowed_origins_as_browsers_send_them_are_taken() -> None:
    given = ["https://play.example.org", "http://localhost:3000", "http://[::1]:8080", "null"]
    args = build_parser().parse_args(["serve", *(f"--allowed-origin={origin}" for origin in given)])
    assert args.allowed_origin == given


def test_verify_help_says_where_an_operator_finds_table_ids(capsys: pytest.CaptureFixture[str]) -> None:
    """``hauntd verify --help`` asked for "ids of finished tables" without a word of where to find them."""
    with pytest.raises(SystemExit):
        build_parser().parse_args(["verify", "--help"])
    assert "table_over" in " ".join(capsys.readouterr().out.split())
