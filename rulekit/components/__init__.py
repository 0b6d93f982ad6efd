"""The building blocks games are made of; importing this package registers every kind."""

from rulekit.components import (  # noqa: F401
    containers,
    cross_sheet,
    deck,
    dice,
    grid,
    line,
    stack,
    supply,
    tiles,
    track,
)
