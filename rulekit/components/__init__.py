"""The building blocks games are made of; importing this package registers every kind."""

from rulekit.components import cross_sheet, dice, line, stack, supply, tiles, track  # noqa: F401
