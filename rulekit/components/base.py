"""What every building block ("component kind") offers the engine.

A kind keeps together its state, the effects it offers, the values expressions may
read from it, its checks and its text rendering. The engine only talks to this
interface, so a new kind touches its own module and the schema, nothing else.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from rulekit.expr import ObjT, Scope, Type

if TYPE_CHECKING:
    from rulekit.expr import Compiled
    from rulekit.spec.source import Path_, Source


class CompiledStep(Protocol):
    """A step of the flow as the engine compiled it; a kind runs those that only have effects."""

    pure: bool

    def run(self, st: Any, env: dict) -> bool: ...


class Builder(Protocol):
    """What a kind uses of the engine's `Builder` while a game loads.

    It is declared here so that the building blocks stay below the engine: they are
    handed a builder and never import it.
    """

    src: Source
    params: dict[str, Any]
    #: the component's path in the document
    path: Path_
    #: the type of `player` (known before `Kind.compile` runs)
    player_t: ObjT
    #: (path, list of steps, scope) -> the compiled steps
    compile_steps: Callable[[Path_, Any, Scope], tuple[CompiledStep, ...]]

    def error(self, path: Path_, message: str, hint: str | None = None,
              key: bool = False) -> None: ...

    def unknown(self, path: Path_, what: str, name: str, known: list[str],
                key: bool = False) -> None: ...

    def where(self, path: Path_) -> str: ...

    def expr(self, path: Path_, value: Any, scope: Scope, expect: Type | None = None,
             key: bool = False) -> Compiled | None: ...

    def fn(self, path: Path_, value: Any, scope: Scope,
           expect: Type | None = None) -> Callable[[Any, dict], Any]: ...


@dataclass
class Effect:
    """An effect step a kind offers: `NAME: {target: EXPR, arg: EXPR, ...}`.

    At run time the engine evaluates `target` to a view of this kind and calls
    `getattr(view, method)(*args)`; views keep their mutating methods behind a
    leading underscore so that expressions cannot call them.
    """

    target: str
    target_type: str  # the name of the view type the target must have
    method: str
    args: dict[str, Type] = field(default_factory=dict)
    optional: tuple[str, ...] = ()
    doc: str = ""


@dataclass
class Chance:
    """A chance step a kind offers (`roll: dice`, `deal: tiles`)."""

    sample: Callable[[Any, Any], Any]        # (view, rng) -> outcome (plain JSON data)
    check: Callable[[Any, Any], str | None]  # (view, outcome) -> why it is impossible, or None
    apply: Callable[[Any, Any], None]        # (view, outcome) -> None
    doc: str = ""
    #: False when the outcome is secret (a deal into hidden hands): shown to nobody in play
    public: bool = True
    #: the mapping form `NAME: {TARGET: EXPR, ARG: EXPR}` (e.g. `roll: {dice: player.cup,
    #: only: [...]}`): the name of the key giving the component's view, its type's name, the
    #: optional arguments and `prepare(view, *args)`, run when the step is reached
    target: str = ""
    target_type: str = ""
    args: dict[str, Type] = field(default_factory=dict)
    prepare: Callable[..., None] | None = None
    #: (view) -> every outcome with its probability, as independent parts: a list of
    #: (key, [(value, probability), ...]) whose product is the distribution, the outcome
    #: being the mapping key -> value. None where the outcomes are too many to list (a
    #: shuffle): then the outcome can only be sampled. Adapters to other frameworks use it.
    outcomes: Callable[[Any], list[tuple[str, list[tuple[Any, float]]]]] | None = None
    #: (view, rng) -> outcome, applied: `sample` then `apply` in one pass, with the same
    #: draws and the same outcome; what random play uses where a kind offers it
    draw: Callable[[Any, Any], Any] | None = None


class Kind:
    """Base of all component kinds; one instance per component of a game."""

    kind: str = ""
    #: JSON Schema of the component's mapping (besides `kind` and `per`)
    schema: dict = {}
    #: effect steps by name
    effects: dict[str, Effect] = {}
    #: chance steps by name (`roll`, `deal`)
    chances: dict[str, Chance] = {}
    #: True when some of the state is hidden from some seats (then `redeal_unseen` matters)
    hides_information: bool = False

    def __init__(self, name: str, config: dict, per_player: bool, index: int) -> None:
        self.name = name
        self.config = config
        self.per_player = per_player
        self.index = index  # where the state lives: st.comps[index]

    # ---- load time -------------------------------------------------------------------------
    def declare(self, b: Builder) -> None:
        """Read the config and build the types expressions will see (report problems through `b`).

        `b.path` is the component's path in the document.
        """

    def compile(self, b: Builder, scope: Scope) -> None:
        """Compile the config's expressions, now that every name of the game is known."""

    def global_type(self) -> ObjT | None:
        """The type of the component's name in expressions (None: not readable globally)."""
        return None

    def player_type(self) -> ObjT | None:
        """For per-player components, the type of `player.<name>`."""
        return None

    # ---- run time --------------------------------------------------------------------------
    def new_state(self, st: Any) -> Any:
        raise NotImplementedError

    def copy_state(self, s: Any) -> Any:
        raise NotImplementedError

    def global_view(self, st: Any) -> Any:
        raise NotImplementedError

    def player_view(self, st: Any, seat: int) -> Any:
        raise NotImplementedError

    def secret_chances(self) -> frozenset[str]:
        """Names of this component's chance steps whose outcomes some seats may not see."""
        return frozenset(name for name, c in type(self).chances.items() if not c.public)

    def redeal_unseen(self, st: Any, seat: int, rng: Any) -> None:
        """Re-draw at random, in `st` (a copy), what `seat` cannot see, keeping what it can.

        Bots look ahead in such copies, so that they decide from what their seat can see.
        """

    def state_size(self, st: Any) -> dict[str, int]:
        """Counts that the rules conserve (tokens, tiles), for invariant checks."""
        return {}

    def snapshot(self, st: Any, seat: int | None) -> Any:
        """Plain JSON data of the state as `seat` may see it (None: everything)."""
        return None

    def render(self, st: Any, seat: int | None) -> str:
        """Text of the shared part for a person at `seat` (None: an observer who sees all)."""
        return ""

    def render_player(self, st: Any, player: int, seat: int | None) -> str:
        """Text of `player`'s own part (their sheet, hand, winnings) for a person at `seat`.

        `rulekit play` shows it in that player's block, so a game reads player by player.
        """
        return ""

    def html(self, st: Any, seat: int | None) -> str:
        """HTML of the shared part for the browser; by default the text of `render`."""
        from rulekit.components.markup import pre

        return pre(self.render(st, seat))

    def html_player(self, st: Any, player: int, seat: int | None) -> str:
        """HTML of `player`'s own part for a person at `seat`; by default `render_player`'s
        text. Like the text, it holds only what `seat` may see."""
        from rulekit.components.markup import pre

        return pre(self.render_player(st, player, seat))


REGISTRY: dict[str, type[Kind]] = {}


def register(cls: type[Kind]) -> type[Kind]:
    REGISTRY[cls.kind] = cls
    return cls


#: Random._randbelow of a plain Random, and the type of its C methods
_RANDBELOW = getattr(random.Random, "_randbelow_with_getrandbits", None)
_BUILTIN = type(random.Random().getrandbits)


def plain_bits(randbelow: Any) -> Callable[[int], int] | None:
    """The `getrandbits` that `randbelow` (an RNG's `_randbelow`) draws with, where it is
    a plain Random's: code that writes the draws out draws the same numbers. Else None."""
    if getattr(randbelow, "__func__", None) is not _RANDBELOW:
        return None
    getbits = randbelow.__self__.getrandbits
    return getbits if getbits.__class__ is _BUILTIN else None


def shuffle(rng: Any, x: list) -> None:
    """`rng.shuffle(x)`: the same draws, written out for a plain Random, whose shuffle
    calls a Python function per element (a search's copy of a game with hidden pieces
    deals them anew at every iteration)."""
    getbits = plain_bits(getattr(rng, "_randbelow", None))
    if getbits is None:
        rng.shuffle(x)
        return
    for i in range(len(x) - 1, 0, -1):
        m = i + 1
        k = m.bit_length()
        j = getbits(k)
        while j >= m:
            j = getbits(k)
        x[i], x[j] = x[j], x[i]
