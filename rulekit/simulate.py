"""The seeds and the game loop that `rulekit play` shares with the studies.

The studies themselves live in `rulekit.studies`; this module keeps the names that
`rulekit play` (rulekit/terminal.py) and outside code import from here.
"""

from rulekit.studies.play import derive_seed, play_game

__all__ = ["derive_seed", "play_game"]
