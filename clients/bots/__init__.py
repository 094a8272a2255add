"""Bots: strategies that pick an action from what a seat sees on the wire (its view, prompts and legal actions).

A strategy never touches the engine state: it gets exactly the JSON a connected player gets, so the same code
plays over the protocol (``hauntd bot``), in the in-process arena used by ``hauntd bench bots``, and in the
server's own bot seats (``server/bots.py``, a table created with ``bots``).
"""

from clients.bots.base import Decision, Strategy, get_strategy, strategies

__all__ = ["Decision", "Strategy", "get_strategy", "strategies"]
