"""Ghost at Home (2–5 seats, competitive): explore your haunted house floor by floor and escape first.

Rules: the project rules file ghost-at-home.md (G1–G11); rulings it leaves open: README, "Ghost at Home (G)".
"""

from engine.ghost_at_home.game import GhostAtHome

GAME = GhostAtHome()

__all__ = ["GAME", "GhostAtHome"]
