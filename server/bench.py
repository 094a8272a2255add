"""``hauntd bench``: benchmarks that print one JSON object of figures."""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from typing import Any

from clients.bots.base import strategy_option
from engine.contract import IllegalAction
from engine.registry import games, get_game
from engine.rng import seed_from_int
from server.cli import at_least_one, check_seats, json_object, ws_url


def add_arguments(parser: argparse.ArgumentParser) -> None:
    kinds = parser.add_subparsers(dest="kind", metavar="KIND", required=True)
    eng = kinds.add_parser(
        "engine",
        help="play random legal games in one process and report games and actions per second",
        description="Play N random legal games (legal-action generation included) in this process.",
    )
    eng.add_argument("--game", default="mansion", choices=sorted(games()), help="rule set (default: mansion)")
    eng.add_argument("--seats", type=at_least_one, default=4, help="seats per game (default: 4)")
    eng.add_argument("--games", type=at_least_one, default=300, help="number of games (default: 300)")
    eng.add_argument("--seed", type=int, default=1, help="first game seed; game i uses seed+i (default: 1)")
    eng.add_argument("--json", action="store_true", help="print only the JSON object (the default output)")
    eng.set_defaults(_usage_error=eng.error)
    lat = kinds.add_parser(
        "latency",
        help="round-trip latency of actions over real sockets: 4 seats at one table, p50 and p99",
        description="Play random legal mansion games over WebSocket, one action at a time, and time each action "
        "from send to 'accepted' and to its update reaching every other seat.  Without --url a server with an "
        "embedded Valkey is started for the run.",
    )
    lat.add_argument("--url", type=ws_url, help="a running server (default: start one)")
    lat.add_argument("--actions", type=at_least_one, default=1000, help="actions to time (default: 1000)")
    lat.add_argument("--seats", type=at_least_one, default=4, help="seats at the table (default: 4)")
    lat.add_argument("--seed", type=int, default=1, help="seed of the random choices (default: 1)")
    lat.add_argument("--json", action="store_true", help="print only the JSON object (the default output)")
    lat.set_defaults(_usage_error=lat.error, game="mansion")  # (the game it plays)
    bots = kinds.add_parser(
        "bots",
        help="measure a strategy's strength in in-process games (against random bots, or a cooperative table's)",
        description=(
            "Competitive games: one STRATEGY bot against AGAINST bots (default random), its seat rotating game by "
            "game; reports its win rate (a shared win counts as a fraction) and random_expectation (1 / seats: "
            "what a bot no better than the others gets). Cooperative games (spook): every seat is a STRATEGY bot and "
            "the table wins or loses as one (--seats 1: one bot alone); STRATEGY_win_rate is the share of games "
            "that table won, AGAINST_win_rate the same for a table of AGAINST bots on the same seeds (a person "
            "playing with bots is not measured). ms_per_game times the STRATEGY's games only."
        ),
    )
    bots.add_argument("--game", default="mansion", choices=sorted(games()), help="rule set (default: mansion)")
    bots.add_argument("--seats", type=at_least_one, default=4, help="seats per game (default: 4)")
    bots.add_argument("--games", type=at_least_one, default=200, help="number of games (default: 200)")
    bots.add_argument(
        "--strategy",
        default="greedy",
        type=strategy_option,
        help="strategy measured: a built-in name or your own module:Class (default: greedy)",
    )
    bots.add_argument(
        "--against",
        default="random",
        type=strategy_option,
        help="what the other seats play (a cooperative game: the table compared with): a built-in name or "
        "module:Class (default: random)",
    )
    bots.add_argument(
        "--seed",
        type=int,
        default=1,
        help="first game seed: game i deals from seed+i, and the bots' choices draw from a random.Random(seed+i) "
        "(default: 1)",
    )
    bots.add_argument(
        "--options",
        type=json_object,
        default=None,
        help="the tables' game options as a JSON object, as hauntd bot takes them, e.g. '{\"max_rounds\": 20}' "
        "for ghost-at-home (default: the game's; hauntd schema --game NAME lists them)",
    )
    bots.add_argument("--json", action="store_true", help="print only the JSON object (the default output)")
    bots.set_defaults(_usage_error=bots.error)


def run(args: argparse.Namespace) -> int:
    check_seats(args._usage_error, args.game, args.seats)
    if args.kind == "engine":
        print(json.dumps(bench_engine(args.game, args.seats, args.games, args.seed)))
        return 0
    if args.kind == "latency":
        from server.latency import bench_latency

        print(json.dumps(bench_latency(args.url, args.actions, args.seats, args.seed)))
        return 0
    if args.kind == "bots":
        from clients.bots.arena import MatchStalled
        from clients.bots.base import StrategyFailed, failure_report

        try:
            figures = bench_bots(
                args.game, args.seats, args.games, args.strategy, args.seed, args.against, args.options
            )
        except StrategyFailed as exc:
            print(failure_report("hauntd bench bots", exc), file=sys.stderr)
            return 1
        except (MatchStalled, IllegalAction) as exc:  # (IllegalAction: the options, refused as a create would be)
            print(f"hauntd bench bots: {exc}", file=sys.stderr)
            return 1
        print(json.dumps(figures))
        return 0
    print(f"unknown benchmark {args.kind}", file=sys.stderr)
    return 2


def bench_engine(game_name: str, seats: int, n_games: int, first_seed: int) -> dict[str, object]:
    """Random playouts timed end to end: setup, prompts, legal actions, apply."""
    from engine.playout import random_playout

    game = get_game(game_name)
    chooser = random.Random(first_seed)
    actions = 0
    started = time.perf_counter()
    for i in range(n_games):
        _, log = random_playout(game, seats, seed_from_int(first_seed + i), chooser)
        actions += len(log)
    elapsed = time.perf_counter() - started
    return {
        "game": game_name,
        "seats": seats,
        "games": n_games,
        "seconds": round(elapsed, 4),
        "games_per_s": round(n_games / elapsed, 1),
        "actions_per_s": round(actions / elapsed, 1),
        "mean_actions_per_game": round(actions / n_games, 1),
    }


def bench_bots(
    game_name: str,
    seats: int,
    n_games: int,
    strategy: str,
    first_seed: int,
    against: str = "random",
    options: dict[str, Any] | None = None,
) -> dict[str, object]:
    """Strategy strength in in-process games at tables of the game's ``options`` (its defaults: None); see the
    ``bots`` subcommand's description.  Options the game refuses raise ``IllegalAction`` (``bad_option``)."""
    from clients.bots.arena import play_match
    from clients.bots.base import load_strategy

    started = time.perf_counter()
    cooperative = get_game(game_name).cooperative
    figures: dict[str, object] = {"game": game_name, "seats": seats, "games": n_games, "strategy": strategy}
    if options is not None:
        figures["options"] = options
    figures["table"] = f"every seat {strategy}" if cooperative else f"1 seat {strategy}, the others {against}"
    spent = 0.0  # in the strategy's games only
    if cooperative:
        wins = {name: 0 for name in (strategy, against)}
        for i in range(n_games):
            for name in wins:
                table = [load_strategy(game_name, name) for _ in range(seats)]
                begun = time.perf_counter()
                result = play_match(game_name, table, first_seed + i, options=options)
                if name == strategy:
                    spent += time.perf_counter() - begun
                wins[name] += bool(result.winners)
        for name, won in wins.items():
            figures[f"{name}_win_rate"] = round(won / n_games, 4)
    else:
        share = 0.0
        for i in range(n_games):
            players = [load_strategy(game_name, against) for _ in range(seats)]
            seat = i % seats
            players[seat] = load_strategy(game_name, strategy)
            begun = time.perf_counter()
            result = play_match(game_name, players, first_seed + i, options=options)
            spent += time.perf_counter() - begun
            if seat in result.winners:
                share += 1 / len(result.winners)
        figures[f"{strategy}_win_rate"] = round(share / n_games, 4)
        figures["random_expectation"] = round(1 / seats, 4)
    figures["ms_per_game"] = round(spent / n_games * 1000, 2)
    figures["seconds"] = round(time.perf_counter() - started, 2)
    return figures
