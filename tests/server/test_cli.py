"""The ``hauntd`` command line as a new user meets it: ``--help`` and a mistyped option."""

import argparse
from collections.abc import Iterator

import pytest

from server.cli import build_parser


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


def test_bench_bots_refuses_an_unknown_strategy(capsys: pytest.CaptureFixture[str]) -> None:
    """A misspelt ``--strategy`` ended ``hauntd bench bots`` in a ``KeyError`` traceback, not a usage error."""
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(["bench", "bots", "--strategy", "gredy"])
    assert exit_.value.code == 2 and "invalid choice: 'gredy'" in capsys.readouterr().err
