"""Hand-written Python versions of the shipped games: the yardstick of the engine's speed.

`qwixx`, `levelx` and `domino7` are plain implementations behind the same State API as
rulekit's (`new_game`, `legal_actions`, `apply`, `resolve_chance`, labels and a log), written
the way a careful programmer would without an engine. `qwixx_fast` plays random Qwixx games
without any API, as fast as plain Python reasonably goes. None of this belongs to the
engine: rulekit itself never names a game.
"""
