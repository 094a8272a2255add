"""The surface a bot author meets: a decision from an SDK update, a strategy of their own, the game's catalog."""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from clients.bots.base import Decision, IllegalChoice, StrategyFailed, catalog, load_strategy, strategy_option
from engine.registry import games
from protocol.messages import Events, PromptInfo, Snapshot
from server.bench import bench_bots
from server.http import catalogs


class FirstLegal:
    """A strategy of "someone else's": always the first legal action."""

    def choose(self, decision: Decision, rng: random.Random) -> dict[str, Any]:
        return decision.legal[0]


ME = f"{__name__}:FirstLegal"


class Flies:
    """A strategy that returns an action of its own making, none of the legal ones."""

    def choose(self, decision: Decision, rng: random.Random) -> dict[str, Any]:
        return {"type": "fly"}


FLIES = f"{__name__}:Flies"


class Raises:
    """A strategy with a bug of its own."""

    def choose(self, decision: Decision, rng: random.Random) -> dict[str, Any]:
        return {}["oops"]  # type: ignore[no-any-return]


RAISES = f"{__name__}:Raises"


def test_a_decision_is_built_from_the_update_that_asks_it() -> None:
    """Each bot author had to find its own prompt among ``prompts`` and turn it into the dict ``Decision`` holds."""
    update = Events(
        table="t",
        seq=4,
        prompts=[PromptInfo(seat=0, kind="dial"), PromptInfo(seat=1, kind="turn")],
        legal=[{"type": "end_turn"}],
        view={"seat": 1},
    )
    assert Decision.of(1, update) == Decision(1, {"seat": 1}, {"seat": 1, "kind": "turn"}, [{"type": "end_turn"}])
    assert Decision.of(2, update) is None  # nothing asked of seat 2
    assert Decision.of(1, Events(table="t", seq=5)) is None  # no news
    snapshot = Snapshot(table="t", game="mansion", seq=3, status="playing", seats=[], seat=1)
    assert Decision.of(1, snapshot) is None


def test_a_strategy_of_ones_own_is_named_module_colon_class() -> None:
    """``--strategy`` took built-in names only: a strategy written outside ``clients/bots`` could not be measured."""
    assert isinstance(load_strategy("mansion", ME), FirstLegal)
    assert strategy_option(ME) == ME and strategy_option("greedy") == "greedy"
    figures = bench_bots("ghost-at-home", 2, 2, ME, 1)
    assert figures["strategy"] == ME and 0 <= float(str(figures[f"{ME}_win_rate"])) <= 1


def test_bench_bots_says_which_table_it_measured_and_the_strategys_time_per_game() -> None:
    """A cooperative game's ``greedy_win_rate`` read like a competitive one's (one greedy seat among random ones),
    and ``seconds`` mixed in the random table's games: the figures now say who sat at the table."""
    spook = bench_bots("spook", 1, 2, "greedy", 1)
    assert spook["table"] == "every seat greedy" and "random_win_rate" in spook
    mansion = bench_bots("mansion", 3, 2, "greedy", 1)
    assert mansion["table"] == "1 seat greedy, the others random" and mansion["random_expectation"] == 0.3333
    for figures in (spook, mansion):  # (2 games; both figures rounded, to 0.01 ms and 10 ms)
        assert 0 < 2 * float(str(figures["ms_per_game"])) <= 1000 * float(str(figures["seconds"])) + 10


def test_the_bench_measures_a_strategy_against_any_other() -> None:
    """``hauntd bench bots`` measured a strategy against random bots only: a bot author could not tell whether a
    bot of their own beat the built-in ``greedy``."""
    from server.cli import build_parser

    assert build_parser().parse_args(["bench", "bots", "--against", ME]).against == ME
    figures = bench_bots("ghost-at-home", 2, 2, "greedy", 1, against=ME)
    assert figures["table"] == f"1 seat greedy, the others {ME}" and "greedy_win_rate" in figures
    with pytest.raises(IllegalChoice, match=r"^Flies\.choose returned \{'type': 'fly'\} to seat 1's "):
        bench_bots("ghost-at-home", 2, 1, "greedy", 1, against=FLIES)  # the others do play it
    spook = bench_bots("spook", 1, 2, "greedy", 1, against=ME)  # a cooperative table compared with theirs
    assert {"greedy_win_rate", f"{ME}_win_rate"} <= set(spook) and "random_win_rate" not in spook


class CountsRounds(FirstLegal):
    """The first legal action, noting the Ghost at Home rounds each decision's view shows."""

    seen: list[tuple[int, int]] = []  # (round, max_rounds)

    def choose(self, decision: Decision, rng: random.Random) -> dict[str, Any]:
        self.seen.append((decision.view["round"], decision.view["max_rounds"]))
        return super().choose(decision, rng)


def test_the_bench_plays_tables_of_the_options_given(capsys: pytest.CaptureFixture[str]) -> None:
    """``hauntd bench bots`` had no ``--options``: a strategy for Ghost at Home's short games (``max_rounds``) was
    measured at the default 100 rounds only.  A table's options as ``hauntd bot`` takes them; bad ones in one line."""
    from server.cli import main

    command = ["bench", "bots", "--game", "ghost-at-home", "--seats", "2", "--games", "3"]
    assert main([*command, "--strategy", f"{__name__}:CountsRounds", "--options", '{"max_rounds": 1}']) == 0
    figures = json_decode(capsys.readouterr().out)
    assert figures["options"] == {"max_rounds": 1}
    assert CountsRounds.seen and {limit for _, limit in CountsRounds.seen} == {1}
    assert max(played for played, _ in CountsRounds.seen) == 1
    assert main([*command, "--options", '{"max_rounds": 0}']) == 1
    assert capsys.readouterr().err.startswith("hauntd bench bots: bad_option: ")
    with pytest.raises(SystemExit) as exited:
        main([*command, "--options", "[1]"])
    assert exited.value.code == 2 and "argument --options: not a JSON object: '[1]'" in capsys.readouterr().err


def json_decode(text: str) -> dict[str, Any]:
    decoded: dict[str, Any] = msgspec.json.decode(text)
    return decoded


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("gredy", "invalid choice: 'gredy' (choose from greedy, random, or module:Class)"),
        ("no_such_module:X", "cannot load strategy 'no_such_module:X': No module named 'no_such_module'"),
        (f"{__name__}:Nope", f"cannot load strategy '{__name__}:Nope'"),
    ],
)
def test_a_bad_strategy_option_says_what_to_give(text: str, says: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="^" + says.replace("(", r"\(").replace(")", r"\)")):
        strategy_option(text)


@pytest.mark.parametrize("game", sorted(games()))
def test_the_catalog_is_what_the_server_serves(game: str) -> None:
    """A strategy in ``hauntd bench bots`` has no server to fetch ``/games/NAME.json`` from."""
    assert catalog(game) == msgspec.json.decode(catalogs()[f"/games/{game}.json"].body)


@pytest.mark.parametrize("game", sorted(games()))
def test_a_choice_none_of_the_legal_actions_is_named_in_the_bench(game: str) -> None:
    """``hauntd bench bots`` met such a choice with a msgspec traceback from inside the engine: it says now which
    strategy chose what, to which prompt, and what to return instead."""
    with pytest.raises(IllegalChoice, match=r"^Flies\.choose returned \{'type': 'fly'\} to seat 0's '\w+' prompt: "):
        bench_bots(game, 2, 1, FLIES, 1)


def test_the_bench_command_reports_an_illegal_choice_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from server.bench import run

    args = argparse.Namespace(
        kind="bots",
        game="mansion",
        seats=2,
        games=1,
        strategy=FLIES,
        against="random",
        seed=1,
        options=None,
        _usage_error=pytest.fail,
    )
    assert run(args) == 1
    err = capsys.readouterr().err
    assert err.startswith("hauntd bench bots: Flies.choose returned") and "not one of decision.legal" in err


def test_a_strategy_that_raises_is_named_with_its_seat_prompt_and_game(capsys: pytest.CaptureFixture[str]) -> None:
    """``hauntd bench bots`` (and ``hauntd bot``) ended in the bare traceback of the strategy's exception: which
    seat, which prompt (and which game, to replay it) was left to guess."""
    from server.bench import run

    with pytest.raises(
        StrategyFailed, match=r"^Raises\.choose raised KeyError\('oops'\) to seat 0's 'turn' prompt"
    ) as info:
        bench_bots("ghost-at-home", 2, 2, RAISES, 7)
    assert info.value.__notes__ == ["(the ghost-at-home game of seed 7)"]
    args = argparse.Namespace(
        kind="bots",
        game="ghost-at-home",
        seats=2,
        games=1,
        strategy=RAISES,
        against="random",
        seed=5,
        options=None,
        _usage_error=pytest.fail,
    )
    assert run(args) == 1
    err = capsys.readouterr().err
    assert 'return {}["oops"]' in err  # the strategy's own traceback, then one line saying where it failed
    assert err.rstrip().endswith(
        "\nhauntd bench bots: Raises.choose raised KeyError('oops') to seat 0's 'turn' prompt "
        "(the ghost-at-home game of seed 5)"
    )


class HuntsAndLetsGo:
    """Spook: starts every hunt it may and offers nothing to it, so the hunt is let go.  It kept games from ever
    ending, starting the same hunt again at once, until a hunt let go was made illegal for the rest of the turn."""

    def choose(self, decision: Decision, rng: random.Random) -> dict[str, Any]:
        for kind in ("hunt", "done"):
            for action in decision.legal:
                if action["type"] == kind:
                    return action
        return decision.legal[0]


def test_a_game_the_strategies_keep_from_ending_stops_the_bench() -> None:
    """Such a game made ``hauntd bench bots`` run for ever, printing nothing."""
    from clients.bots.arena import MatchStalled, play_match

    with pytest.raises(MatchStalled, match=r"^spook game of seed 1 not over after 50 actions: .*HuntsAndLetsGo"):
        play_match("spook", [HuntsAndLetsGo(), HuntsAndLetsGo()], 1, max_actions=50)
    assert play_match("spook", [HuntsAndLetsGo(), HuntsAndLetsGo()], 1, max_actions=500) is not None  # S11


def test_a_strategy_of_ones_own_is_found_in_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README says ``module:Class`` is "importable from the current directory", which held under
    ``python -m server.cli`` only: the installed ``hauntd`` command's ``sys.path`` starts at its own folder, and
    ``hauntd bench bots --strategy mybot:MyBot`` beside ``mybot.py`` said "No module named 'mybot'"."""
    (tmp_path / "ghbot_here.py").write_text(
        "class Mine:\n    def choose(self, decision, rng):\n        return decision.legal[0]\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    try:
        assert strategy_option("ghbot_here:Mine") == "ghbot_here:Mine"
        assert type(load_strategy("ghost-at-home", "ghbot_here:Mine")).__name__ == "Mine"
    finally:
        sys.modules.pop("ghbot_here", None)
