"""Computer players: objects that pick an action through the public State API only.

A bot has a `name` and `choose(state, rng) -> Action`. It receives its own
`random.Random` so that a seeded simulation is reproducible and the bot's randomness
never disturbs the game's dice; a bot made with `make(spec, seed=S)` also holds an rng
of its own for calls without one.

Bots are named by a spec, the same in `--bots`, in a game file's `levels` and in
`make`: `random`, `greedy`, or `mcts[:BUDGET][:ROLLOUT]` where BUDGET is a number of
iterations (`mcts:400`), a time (`mcts:0.5s`) or both, whichever ends first
(`mcts:2000:1s`), and ROLLOUT is `random` or `greedy`.
"""

from __future__ import annotations

import random
import re
from typing import TYPE_CHECKING, Protocol

from rulekit.bots.greedy import GreedyAgent
from rulekit.bots.mcts import DEFAULT_ITERATIONS, MAX_ITERATIONS, MAX_SECONDS, MctsBot
from rulekit.bots.random_bot import RandomAgent
from rulekit.errors import RulekitError

if TYPE_CHECKING:
    from rulekit import Action, State


class Bot(Protocol):
    """What the simulator and `rulekit play` need from a computer player."""

    name: str

    def choose(self, state: State, rng: random.Random) -> Action:
        """One of `state.legal_actions()` for `state.current_player`."""
        ...


#: the bot names a spec may start with
BOTS = ("greedy", "mcts", "random")
#: a person's opponent in `rulekit play` when neither `--bots` nor the file's levels say:
#: the search bot at a budget that decides within a few tenths of a second on a 2-core
#: machine, and stops at a second whatever the machine
DEFAULT_OPPONENT = "mcts:500:1s"
#: the largest budget of `openspiel-mcts` (about 10 seconds a move on a 2-core machine)
OPENSPIEL_MAX_SIMULATIONS = 1000
#: the rollout policies of `mcts`
ROLLOUTS = ("random", "greedy")
#: an iteration budget, 1 to MAX_ITERATIONS (10000): the same shape in `make` and the schema
_ITERATIONS = r"[1-9][0-9]{0,3}|10000"
#: a time budget, more than 0 and at most MAX_SECONDS (10) seconds: `0.5s`, `.5s`, `10s`
_SECONDS = r"(0*[1-9](\.[0-9]*)?|0*10(\.0*)?|0*\.[0-9]*[1-9][0-9]*)s"
#: the shape of a spec, for the game-file schema (`levels[].bots`): with the budgets' caps,
#: so that a file asking for more is a located error when it is validated or loaded
SPEC_PATTERN = (rf"^\s*(random|greedy|mcts(:({_ITERATIONS}|{_SECONDS}|random|greedy)){{0,3}})"
                r"\s*$")
#: what a spec may be, in words: the hint of the schema's error for a bad one
SPEC_SUMMARY = (f"random, greedy or mcts[:BUDGET][:ROLLOUT] (mcts:400, mcts:0.5s, "
                f"mcts:2000:1s); a budget is at most {MAX_ITERATIONS} iterations and "
                f"{MAX_SECONDS:g} seconds a move")

_SPEC_HELP = ("a bot is random, greedy or mcts; mcts takes a budget of iterations, "
              "seconds or both (whichever ends first) and a rollout policy, e.g. mcts:400, "
              "mcts:0.5s, mcts:2000:1s, mcts:200:greedy")


def known_bots() -> list[str]:
    """The bot names a spec may start with, sorted, for messages and help texts."""
    return list(BOTS)


def _budget(text: str, spec: str) -> tuple[int | None, float | None]:
    """`400` -> 400 iterations; `0.5s` -> 0.5 seconds; anything else is an error."""
    if re.fullmatch(_ITERATIONS, text):
        return int(text), None
    if re.fullmatch(_SECONDS, text):
        return None, float(text[:-1])
    if re.fullmatch(r"[0-9]+", text) and int(text) > MAX_ITERATIONS or (
            re.fullmatch(r"[0-9]*\.?[0-9]+s", text) and float(text[:-1]) > MAX_SECONDS):
        raise RulekitError(f"budget {text!r} in bot {spec!r} is too large: a bot thinks at most "
                           f"{MAX_ITERATIONS} iterations or {MAX_SECONDS:g} seconds a move")
    raise RulekitError(f"bad budget {text!r} in bot {spec!r}: expected iterations from 1 to "
                       f"{MAX_ITERATIONS} (mcts:400) or seconds up to {MAX_SECONDS:g} "
                       f"(mcts:0.5s)")


def _check_simulations(options: list[str], spec: str) -> None:
    """`openspiel-mcts[:SIMULATIONS]` within OPENSPIEL_MAX_SIMULATIONS: a simulation of
    OpenSpiel's search costs some 30 of `mcts`'s iterations, so the same seconds a move."""
    if len(options) > 1 or (options and not re.fullmatch(r"0*[1-9][0-9]*", options[0])):
        raise RulekitError(f"bad bot {spec!r}: openspiel-mcts takes a number of simulations "
                           f"from 1 to {OPENSPIEL_MAX_SIMULATIONS}, e.g. openspiel-mcts:400")
    if options and int(options[0]) > OPENSPIEL_MAX_SIMULATIONS:
        raise RulekitError(f"budget {options[0]!r} in bot {spec!r} is too large: openspiel-mcts "
                           f"thinks at most {OPENSPIEL_MAX_SIMULATIONS} simulations a move")


def make(spec: str, seed: int | None = None) -> Bot:
    """A fresh bot from its spec (`random`, `greedy`, `mcts:400`, `mcts:2000:1s`,
    `mcts:0.5s:greedy`).

    `seed` seeds the bot's own rng, used when `choose` is called without one. A bad
    spec raises a `RulekitError` that says what is accepted.
    """
    if not isinstance(spec, str):
        raise RulekitError(f"a bot is named by a string, not {type(spec).__name__}")
    text = spec.strip().lower()
    name, *options = text.split(":") if text else [""]
    if name == "openspiel-mcts":  # OpenSpiel's MCTS, with the optional extra rulekit[openspiel]
        from rulekit.interop.openspiel_bot import make as make_openspiel

        _check_simulations(options, spec.strip())

        return make_openspiel(options, spec.strip(), random.Random(seed))
    if name not in BOTS:
        raise RulekitError(f"unknown bot {spec.strip()!r}; known bots: {', '.join(BOTS)} "
                           f"({_SPEC_HELP})")
    rng = random.Random(seed)
    if name != "mcts":
        if options:
            raise RulekitError(f"bot {name} takes no options, not {spec.strip()!r}")
        return RandomAgent(rng) if name == "random" else GreedyAgent(rng)
    iterations: int | None = None
    seconds: float | None = None
    rollout: str | None = None
    for option in options:
        if option in ROLLOUTS:
            if rollout is not None:
                raise RulekitError(f"two rollout policies in bot {spec.strip()!r}")
            rollout = option
        else:
            more_iterations, more_seconds = _budget(option, spec.strip())
            if (more_iterations is not None and iterations is not None) or (
                    more_seconds is not None and seconds is not None):
                raise RulekitError(f"two budgets in bot {spec.strip()!r}: one of iterations "
                                   f"and one of seconds at most")
            iterations = iterations if more_iterations is None else more_iterations
            seconds = seconds if more_seconds is None else more_seconds
    if iterations is None and seconds is None:
        iterations = DEFAULT_ITERATIONS
    return MctsBot(iterations=iterations, seconds=seconds, rollout=rollout or "random",
                   rng=rng, name=text, ceiling=MAX_SECONDS)


def check_spec(spec: str) -> str:
    """The spec normalised (stripped, lower case) once `make` accepts it."""
    make(spec)
    return spec.strip().lower()


__all__ = ["BOTS", "DEFAULT_OPPONENT", "MAX_ITERATIONS", "MAX_SECONDS", "Bot", "GreedyAgent",
           "MctsBot", "RandomAgent", "SPEC_PATTERN", "SPEC_SUMMARY", "check_spec", "known_bots",
           "make"]
