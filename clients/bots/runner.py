"""``hauntd bot``: a strategy that takes a seat at a table over the SDK, like any player, and plays until the end.

A bot decides only from what its connection receives: each update that asks it to decide carries its legal
actions and its view.  It acts with the update's ``seq``, so when several seats decide at once and another
seat's action lands first, the server answers ``stale`` and the bot simply decides again from the next update.
An action the server dropped for its rate limit (``rate_limited``) is sent again after a pause: no update follows.
Reconnects are the SDK's: seats are resumed and unanswered actions re-sent (applied at most once); the SDK gives an
action up after its ``request_timeout`` (15 s) without a server, and ``hauntd bot`` then sends it again, with the
same command id, for as long as the server takes to come back.  A bot whose own process died takes its seat back
when started again with the same ``--state`` (``clients/bots/seatfile.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import secrets
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from clients.bots import seatfile
from clients.bots.base import (
    Decision,
    Strategy,
    StrategyFailed,
    decide,
    failure_report,
    load_strategy,
    strategy_names,
    strategy_option,
)
from clients.sdk import Client, ServerError
from engine.registry import games
from protocol.messages import Accepted, Error, Events, GameOver, Rejected, ServerMsg, Snapshot
from server.cli import check_seats, json_object, ws_url

# Rejections a bot meets through no fault of its own: another seat's simultaneous decision came first.
HARMLESS = frozenset({"stale"})
# Rejections of an action the server dropped unread (its rate limit): the same decision is sent again.
DROPPED = frozenset({"rate_limited"})
# What a start attempt may meet when another seat started the table first.
STARTED_ELSEWHERE = frozenset({"already_started"})
# The updates that carry a table's status, legal actions and view (a tuple: cheaper in ``isinstance``).
TABLE_STATES = (Events, Snapshot)


class SeatBot:
    """One seat of one table played by ``strategy``.  Subclasses watch the game through ``observe``,
    ``sending`` and ``acted`` (the load tester times and checks everything there)."""

    def __init__(
        self,
        client: Client,
        table: str,
        seat: int,
        strategy: Strategy,
        rng: random.Random,
        *,
        start: bool = False,
        unreachable: Callable[[], None] | None = None,
    ) -> None:
        self.client = client
        self.table = table
        self.seat = seat
        self.strategy = strategy
        self.rng = rng
        self.start = start  # start the game once every seat is taken
        # with it, an action that got no reply while the server was out of reach (``TimeoutError``) is sent again,
        # same command id, once ``unreachable()`` is called, rather than ending the game for the bot
        self.unreachable = unreachable
        self.status = "lobby"
        self.actions = 0
        self.rejected: dict[str, int] = {}
        self._start_sent = False

    def observe(self, msg: ServerMsg) -> None:
        """Every message of this table, as it arrives."""

    def sending(self, seq: int, at: float) -> None:
        """Just before each action decided at ``seq`` is sent, at ``at`` (``perf_counter``)."""

    def acted(self, seq: int, sent: float, outcome: Accepted | Rejected) -> None:
        """After each action: the ``seq`` it was decided at, when it was sent (``perf_counter``), the answer."""

    async def play(self, timeout: float | None = None) -> GameOver:
        """Play until the game is over; ``timeout`` bounds the wait for a message to act on.  Every message is
        taken in as it arrives (``take_in``, by the connection itself): those asking nothing of this seat, most
        of them, cost no task switch."""
        self.client.intercept(self.take_in)
        try:
            while True:
                over = await self._act_on(await self.client.recv(timeout))
                if over is not None:
                    return over
        finally:
            self.client.intercept(None)

    async def handle(self, msg: ServerMsg) -> GameOver | None:
        """React to one message from the connection; returns the ``game_over`` of this table when it comes."""
        return await self._act_on(msg) if self.take_in(msg) else None

    def take_in(self, msg: ServerMsg) -> bool:
        """Watch one message as it arrives (``observe``, the table's status); whether it asks something of the
        bot: a decision, a start once the table is full, the game is over, or the table is gone."""
        if getattr(msg, "table", self.table) != self.table:
            return False
        self.observe(msg)
        if isinstance(msg, Error) and msg.seq is not None:
            return False  # its store set the table back: the client follows it again from there (a snapshot next)
        if isinstance(msg, GameOver | Error):
            return True
        if not isinstance(msg, TABLE_STATES):
            return False
        if msg.status is not None:
            self.status = msg.status
        return bool(msg.legal) or self._may_start()

    async def _act_on(self, msg: ServerMsg) -> GameOver | None:
        """Do what a message ``take_in`` let through asks; its decision only while it is the newest update.  The
        table gone (an error naming it: it expired) ends the game for the bot: ``ServerError``."""
        if isinstance(msg, GameOver):
            return msg
        if isinstance(msg, Error):
            raise ServerError(msg.code, msg.message)
        if isinstance(msg, TABLE_STATES):
            if not msg.legal:
                await self._start_when_full(msg)
            elif msg.seq == self.client.last_seq.get(self.table):
                await self._decide(msg)
        return None

    async def _decide(self, msg: Events | Snapshot) -> None:
        decision = Decision.of(self.seat, msg)
        if decision is None:
            return
        action = decide(self.strategy, decision, self.rng)
        cmd = None if self.unreachable is None else secrets.token_urlsafe(12)  # (the same for each retry)
        while True:
            sent, reconnects = time.perf_counter(), self.client.reconnects
            self.sending(msg.seq, sent)
            try:
                outcome = await self.client.act(self.table, action, cmd=cmd, seq=msg.seq)
            except TimeoutError:
                if self.unreachable is None or (self.client.connected and self.client.reconnects == reconnects):
                    raise
                self.unreachable()  # sent again once the SDK has reconnected: applied at most once
                continue
            self.acted(msg.seq, sent, outcome)
            if isinstance(outcome, Accepted):
                self.actions += 1
                return
            self.rejected[outcome.code] = self.rejected.get(outcome.code, 0) + 1
            if outcome.code not in DROPPED or msg.seq != self.client.last_seq.get(self.table):
                return
            # the server dropped the action unread: no newer update will come to decide on, so send it again
            # once the connection's allowance has refilled
            limits = self.client.welcome.limits if self.client.welcome is not None else None
            await asyncio.sleep(1 / limits.messages_per_second if limits and limits.messages_per_second else 0.05)

    def _may_start(self) -> bool:
        return self.start and not self._start_sent and self.status == "lobby"

    async def _start_when_full(self, msg: Events | Snapshot) -> None:
        if not self._may_start() or msg.seats is None:
            return
        if all(info.name is not None for info in msg.seats):
            self._start_sent = True
            try:
                await self.client.start(self.table)
            except ServerError as exc:
                if exc.code not in STARTED_ELSEWHERE:
                    raise


def waiting() -> None:
    """What ``hauntd bot`` says while the server is out of reach (the SDK keeps reconnecting, with backoff)."""
    print("hauntd bot: the server is out of reach; waiting for it (Ctrl-C to stop)", file=sys.stderr)


async def run_bot(
    url: str,
    table: str,
    *,
    seat: int | None,
    name: str,
    strategy_name: str,
    game: str,
    seed: int | None,
    state: Path | None = None,
) -> dict[str, Any]:
    """Join ``table`` and play it to the end; returns a summary with the final scores.  ``state``: a file that
    keeps the seat (``clients/bots/seatfile.py``): a seat it holds at ``table`` is resumed, else the new one is
    kept there, and the file goes at the game's end."""
    async with Client(url, client=f"hauntd-bot/{strategy_name}") as client:
        held, resumed = await take_seat(client, table, name, seat, state)
        first = await client.recv(30)
        while not isinstance(first, Snapshot) or first.table != table:
            first = await client.recv(30)
        if game not in ("auto", first.game):
            await give_back(client, table, state, resumed)
            raise ServerError("bad_option", f"table {table} plays {first.game}, not {game}")
        try:
            strategy = load_strategy(first.game, strategy_name)
        except KeyError:  # a built-in name of another game only
            await give_back(client, table, state, resumed)
            raise ServerError("bad_option", f"no {first.game} strategy {strategy_name!r}") from None
        bot = SeatBot(client, table, held, strategy, random.Random(seed), start=True, unreachable=waiting)
        over = await bot.handle(first) or await bot.play()
        if state is not None:
            seatfile.remove(state)
        return {
            "table": table,
            "game": first.game,
            "seat": held,
            "strategy": strategy_name,
            "actions": bot.actions,
            "rejected": bot.rejected,
            "scores": over.result["scores"],
            "winners": over.result["winners"],
            "reconnects": client.reconnects,
            "resumed": resumed,
        }


async def take_seat(client: Client, table: str, name: str, seat: int | None, state: Path | None) -> tuple[int, bool]:
    """The bot's seat at ``table`` and whether it was resumed: the one ``state`` keeps (watched first, so that the
    resume replays no past update), else a new one whose token ``state`` keeps before the join goes out (a join
    that never landed is sent again, with it, by the bot started again)."""
    saved = seatfile.load(state) if state is not None else None
    if saved is not None and saved.table != table:
        raise seatfile.BadSeatFile(f"{state} keeps a seat at table {saved.table}, not {table}: remove it to join")
    if state is None or saved is None:
        token = secrets.token_urlsafe(16)
        if state is not None:
            seatfile.save(state, seatfile.SavedSeat(table, token))
    else:
        token = saved.token
        try:
            await client.watch(table)
            await client.resume(table, token)
        except ServerError as exc:
            if exc.code == "not_found":
                seatfile.remove(state)  # the table is gone (expired): a bot started again takes a new seat
            if exc.code != "auth":
                raise
            # the token holds no seat: its join never landed, and goes out now
        else:
            return client.seats[table].seat, True
    try:
        return (await client.join(table, name, seat, token=token)).seat, False
    except ServerError:
        if state is not None:
            seatfile.remove(state)  # refused: the token holds nothing
        raise


async def give_back(client: Client, table: str, state: Path | None, resumed: bool) -> None:
    """Leave a table the bot will not play: a seat it has just taken, not one it resumed (a game under way)."""
    if resumed:
        return
    await client.leave(table)
    if state is not None:
        seatfile.remove(state)


async def bot_table(url: str, game: str, seats: int, bot_strategy: str, options: dict[str, Any] | None = None) -> str:
    """A new private table of ``game`` (with the game's ``options``) whose seats but the last are server-run bots
    playing ``bot_strategy``: a table for one bot to play alone, with no other program to create it and fill it."""
    async with Client(url, client="hauntd-bot") as client:
        return await client.create(
            game, seats, options=options, private=True, bots=seats - 1, bot_strategy=bot_strategy
        )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--url", type=ws_url, default="ws://127.0.0.1:8765", help="server address (default: %(default)s)"
    )
    parser.add_argument(
        "--table",
        help="the table to join (default: create a private table of --game, every other seat a server-run bot)",
    )
    parser.add_argument("--seats", type=int, default=None, help="without --table: the new table's seats (default: 2)")
    parser.add_argument(
        "--bots-play",
        choices=strategy_names(),
        default=None,
        help="without --table: the built-in strategy of the new table's server-run bots (default: greedy)",
    )
    parser.add_argument(
        "--options",
        type=json_object,
        default=None,
        help="without --table: the new table's game options as a JSON object, e.g. '{\"open_hands\": true}' for "
        "spook (default: the game's; hauntd schema --game NAME lists them)",
    )
    parser.add_argument("--seat", type=int, default=None, help="the seat to take (default: the first free one)")
    parser.add_argument(
        "--name", default=None, help="display name (default: the strategy's name, or its class's, and -bot)"
    )
    parser.add_argument(
        "--strategy",
        default="random",
        type=strategy_option,
        help="how to play: a built-in name or your own module:Class (default: %(default)s)",
    )
    parser.add_argument(
        "--game",
        default="auto",
        choices=["auto", *sorted(games())],
        help="the game the table must play, or the new table's without --table (default: auto, whatever it plays)",
    )
    parser.add_argument("--seed", type=int, default=None, help="seed of the strategy's choices (default: random)")
    parser.add_argument(
        "--state",
        type=Path,
        default=None,
        metavar="PATH",
        help="a file that keeps the bot's seat (its table and token, mode 0600): written as it sits, read at its "
        "start, so a bot started again after its process died resumes its seat and plays on (without --table: "
        "its table rather than a new one); removed at the game's end (default: none, a seat lost with the process)",
    )


def default_name(strategy: str) -> str:
    """A bot's display name when none is given: ``greedy-bot``, ``MyBot-bot`` for ``mybots.mansion:MyBot``, cut to
    the protocol's 32 characters (the whole ``module:Class`` was often longer, and the join refused)."""
    return f"{strategy.rpartition(':')[2]}-bot"[:32]


def run(args: argparse.Namespace) -> int:
    if args.table is None:
        if args.game == "auto":
            args._usage_error("give --table, or --game to create a table of that game")
        if args.seat is not None:
            args._usage_error("--seat is for --table: a table the bot creates leaves it the last seat")
        check_seats(args._usage_error, args.game, 2 if args.seats is None else args.seats)
    elif args.seats is not None or args.bots_play is not None or args.options is not None:
        args._usage_error("--seats, --bots-play and --options are for a table the bot creates: leave out --table")

    async def play() -> dict[str, Any]:
        saved = seatfile.load(args.state) if args.state is not None else None
        table = args.table or (saved.table if saved is not None else None)
        if saved is not None and args.table is None:
            print(f"hauntd bot: resuming its seat at table {table} (kept in {args.state})", file=sys.stderr)
        if table is None:
            seats, bots_play = args.seats or 2, args.bots_play or "greedy"
            table = await bot_table(args.url, args.game, seats, bots_play, args.options)
            bots = f"{seats - 1} server-run {bots_play} bot{'s' * (seats != 2)}"
            print(f"hauntd bot: created table {table}, {bots}", file=sys.stderr)
        return await run_bot(
            args.url,
            table,
            seat=args.seat,
            name=args.name or default_name(args.strategy),
            strategy_name=args.strategy,
            game=args.game,
            seed=args.seed,
            state=args.state,
        )

    try:
        summary = asyncio.run(play())
    except StrategyFailed as exc:
        print(failure_report("hauntd bot", exc), file=sys.stderr)
        return 1
    except (ServerError, seatfile.BadSeatFile) as exc:
        print(f"hauntd bot: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(summary))
    return 0
