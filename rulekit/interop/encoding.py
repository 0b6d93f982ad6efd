"""A game's fixed encoding for learning frameworks: action ids and observation vectors.

OpenSpiel and PettingZoo want, before a game starts, a fixed number of action ids that
mean the same action in every state, and an observation of fixed size. A rulekit label
comes from the file's expressions ("top 7", "3 + 4", "6|4 left") and may depend on the
dice and the board, so its universe is not written anywhere: it is found by playing the
game. `encoding_of(game)` explores it with random games from fixed seeds, over every
player count the file allows. A rare label (one that is legal only late in a game)
may not turn up in a few hundred random games, but its words do: so the space holds, for
each shape of label (its words and the spaces between them), every combination of the
words met at each place ("top", "bottom" ... times 2 ... 12), or only the labels met when
the combinations would be more than `MAX_COMBINATIONS`. Exploring stops when the second
half of the games played added nothing to that space (at least `MIN_GAMES`, at most
`MAX_GAMES` games); a game whose labels keep coming gets a `RulekitError` instead of an
action space that would fail later. The labels, in natural order ("top 2" before
"top 10"), are the ids: the same file with the same params gives the same ids in any
process. A label outside the space is an error when it is met.

The observation is a flat vector built from `state.view(seat)` alone (what the seat may
see), laid out from the views met while exploring: a number is one slot, a flag one slot,
a text one slot per text met at that place (and one for any other), a list of values its
length, each number by position, and a count per value met (a hand, the marked cells).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rulekit.errors import RulekitError

if TYPE_CHECKING:
    from rulekit import Game, State

#: the fewest games the exploration plays, and the most: beyond, the space is not fixed
MIN_GAMES = 48
MAX_GAMES = 3000
#: the most action labels a game may have
MAX_ACTIONS = 100_000
#: the most labels one shape of label may combine from its words
MAX_COMBINATIONS = 20_000
#: the first games played also record the views the observation's layout is made from:
#: every seat's at the end, and one in `LAYOUT_EVERY` of the views seen while playing
LAYOUT_GAMES = 16
LAYOUT_EVERY = 4
#: the most texts (or small numbers) counted one by one at one place of the view
MAX_VALUES = 1024
#: numbers of a list are counted value by value when it takes at most this many values
MAX_COUNTED_NUMBERS = 32
#: the most numbers of one list encoded by position, and the most slots in all
MAX_POSITIONS = 1024
MAX_SLOTS = 200_000
#: the view's parts that are not encoded: the game's name, and the legal labels (a mask)
_SKIPPED = ("game", "legal_actions")
#: the largest magnitude a slot holds (the vector is 32-bit floats)
LARGEST = 1e30

Path = tuple[str, ...]


def natural_key(label: str) -> tuple:
    """Order labels as a person would: the numbers in them compare as numbers."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part)
                 for part in re.findall(r"\d+|\D+", label))


@dataclass
class _Place:
    """What the views showed at one place: the kinds of value, the texts, list lengths."""

    null: bool = False
    flag: bool = False
    number: bool = False
    texts: set | None = None
    is_list: bool = False
    length: int = 0
    list_numbers: bool = False
    values: set | None = None  # the values met in lists here


@dataclass
class Chances:
    """The chance steps met while exploring: whether any, whether one could only be
    sampled (a shuffle), the most values of one part, the most parts of one outcome."""

    any: bool = False
    sampled: bool = False
    values: int = 0
    parts: int = 0

    def note(self, st: State) -> None:
        self.any = True
        parts = st.chance_outcomes()
        if parts is None:
            self.sampled = True
            return
        self.parts = max(self.parts, len(parts))
        self.values = max([self.values] + [len(values) for _, values in parts])


class Encoding:
    """Action ids and the observation layout of one game (with its params)."""

    def __init__(self, labels: list[str], places: dict[Path, _Place], games: int,
                 players: range, chances: Chances) -> None:
        #: what the chance steps met while exploring were like
        self.chances = chances
        self.labels: tuple[str, ...] = tuple(sorted(labels, key=natural_key))
        self.ids: dict[str, int] = {label: i for i, label in enumerate(self.labels)}
        #: how many games the exploration played, over which player counts
        self.games = games
        self.players = players
        self._slots: dict[Path, dict[Any, int]] = {}
        names: list[str] = []
        for path in sorted(places):
            place = places[path]
            slots: dict[Any, int] = {}
            text = ".".join(path)

            def add(key: Any, name: str, slots: dict = slots, text: str = text) -> None:
                slots[key] = len(names)
                names.append(f"{text}{name}")

            if place.is_list:
                add("len", " length")
                if place.list_numbers:
                    for i in range(min(place.length, MAX_POSITIONS)):
                        add(("at", i), f"[{i}]")
                for value in sorted(place.values or (), key=_value_key):
                    add(("has", value), f" has {value}")
            if place.null:
                add("null", " is null")
            if place.flag:
                add("flag", "")
            if place.number:
                add("number", "")
            if place.texts is not None:
                for value in sorted(place.texts):
                    add(("text", value), f" = {value}")
                add("other", " = another text")
            self._slots[path] = slots
            if len(names) > MAX_SLOTS:
                raise RulekitError(f"cannot encode the game's views: they need more than "
                                   f"{MAX_SLOTS} numbers")
        #: what each slot of the observation vector holds, for people and tests
        self.slot_names: tuple[str, ...] = tuple(names)

    @property
    def num_actions(self) -> int:
        return len(self.labels)

    @property
    def size(self) -> int:
        """The length of the observation vector."""
        return len(self.slot_names)

    def action_id(self, label: str) -> int:
        """The id of a label; one the exploration never met is an error saying so."""
        found = self.ids.get(label)
        if found is None:
            raise RulekitError(
                f"the action {label!r} was not met while exploring the game ({self.games} "
                f"random games found {len(self.labels)} labels), so it has no id in the fixed "
                "action space; a label made from many values (a free text, a large number) "
                "cannot be given one")
        return found

    def label(self, action_id: int) -> str:
        if not isinstance(action_id, int) or not 0 <= action_id < len(self.labels):
            raise RulekitError(f"no action has the id {action_id!r}: the ids are 0 to "
                               f"{len(self.labels) - 1}")
        return self.labels[action_id]

    def encode(self, view: dict) -> list[float]:
        """The observation vector of a view (`state.view(seat)`); parts of the view that
        the exploration never showed are left out, texts it never showed count as other."""
        out = [0.0] * len(self.slot_names)
        slots = self._slots
        for path, value in _leaves(view):
            where = slots.get(path)
            if where is None:
                continue
            if value.__class__ is list:
                out[where["len"]] = float(len(value))
                for i, item in enumerate(value):
                    at = where.get(("at", i))
                    if at is not None and _is_number(item):
                        out[at] = _clamp(item)
                    has = where.get(("has", _hashable(item)))
                    if has is not None:
                        out[has] += 1.0
            elif value is None:
                if "null" in where:
                    out[where["null"]] = 1.0
            elif value is True or value is False:
                if "flag" in where:
                    out[where["flag"]] = float(value)
            elif _is_number(value):
                if "number" in where:
                    out[where["number"]] = _clamp(value)
            elif isinstance(value, str):
                slot = where.get(("text", value), where.get("other"))
                if slot is not None:
                    out[slot] = 1.0
        return out


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _clamp(value: float) -> float:
    try:
        number = float(value)
    except OverflowError:
        return LARGEST if value > 0 else -LARGEST
    return max(-LARGEST, min(LARGEST, number)) if number == number else 0.0


def _hashable(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool)) or value is None else str(value)


def _value_key(value: Any) -> tuple:
    return (0, value, "") if _is_number(value) else (1, 0, str(value))


def _leaves(view: dict) -> Iterator[tuple[Path, Any]]:
    """(place, value) for every value of the view; a list of plain values is one value,
    a list of mappings or lists has a place per position (`#0`, `#1`, ...)."""
    stack: list[tuple[Path, Any]] = [((str(k),), v) for k, v in view.items()
                                     if k not in _SKIPPED]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            stack.extend((path + (str(k),), v) for k, v in value.items())
        elif isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
            stack.extend((path + (f"#{i}",), v) for i, v in enumerate(value))
        else:
            yield path, value


def _record(places: dict[Path, _Place], view: dict) -> None:
    """Note what a view shows at each place, for the layout."""
    for path, value in _leaves(view):
        place = places.get(path)
        if place is None:
            place = places[path] = _Place()
        if value.__class__ is list:
            place.is_list = True
            place.length = max(place.length, len(value))
            values = place.values if place.values is not None else set()
            for item in value:
                if _is_number(item):
                    place.list_numbers = True
                if len(values) <= MAX_VALUES:
                    values.add(_hashable(item))
            place.values = values
        elif value is None:
            place.null = True
        elif value is True or value is False:
            place.flag = True
        elif _is_number(value):
            place.number = True
        elif isinstance(value, str):
            if place.texts is None:
                place.texts = set()
            if len(place.texts) < MAX_VALUES:
                place.texts.add(value)


def _finish_places(places: dict[Path, _Place]) -> None:
    """Counts per value only where they are few: texts (a hand of tiles), small numbers."""
    for place in places.values():
        if place.values is None:
            continue
        values = place.values
        numbers = [v for v in values if _is_number(v)]
        if len(values) > MAX_VALUES or (numbers and len(values) > MAX_COUNTED_NUMBERS):
            place.values = set()


class _Labels:
    """The labels met, and the words met at each place of each shape of label."""

    def __init__(self) -> None:
        self.met: set[str] = set()
        self.words: dict[tuple[str, ...], list[set[str]]] = {}

    def add(self, label: str) -> None:
        if label in self.met:
            return
        self.met.add(label)
        parts = re.split(r"(\s+)", label)
        words = self.words.setdefault(tuple(parts[1::2]), [set() for _ in parts[::2]])
        for place, word in zip(words, parts[::2]):
            place.add(word)

    def size(self) -> int:
        """How many labels the space holds (without listing them)."""
        n = 0
        for shape, words in self.pooled().items():
            product = _product(words)
            n += product if product <= MAX_COMBINATIONS else len(
                [label for label in self.met if tuple(re.split(r"(\s+)", label)[1::2]) == shape])
        return n

    def pooled(self) -> dict[tuple[str, ...], list[set[str]]]:
        """The words of each place, with the words of the same pattern (`7|7` is `9|9`,
        `top` is `a`) met at other places: where a place shows two words of a pattern or
        more, it takes every word of that pattern from such places."""
        kinds: dict[str, set[str]] = {}
        for words in self.words.values():
            for place in words:
                for pattern, group in _by_pattern(place).items():
                    if len(group) > 1:
                        kinds.setdefault(pattern, set()).update(group)
        out = {}
        for shape, words in self.words.items():
            out[shape] = [place.union(*(kinds[p] for p, group in _by_pattern(place).items()
                                        if len(group) > 1)) for place in words]
        return out

    def space(self) -> set[str]:
        out: set[str] = set()
        for shape, words in self.pooled().items():
            if _product(words) > MAX_COMBINATIONS:
                out.update(label for label in self.met
                           if tuple(re.split(r"(\s+)", label)[1::2]) == shape)
                continue
            for combination in itertools.product(*(sorted(w) for w in words)):
                out.add("".join(w + s for w, s in zip(combination, shape + ("",))))
        return out


def _by_pattern(words: set[str]) -> dict[str, set[str]]:
    """Words grouped by their pattern: digits runs as 9, letter runs as a."""
    out: dict[str, set[str]] = {}
    for word in words:
        pattern = re.sub(r"[^\W\d_]+", "a", re.sub(r"\d+", "9", word))
        out.setdefault(pattern, set()).add(word)
    return out


def _product(words: list[set[str]]) -> int:
    n = 1
    for place in words:
        n *= len(place)
    return n


def explore(game: Game) -> Encoding:
    """Play random games from fixed seeds until no new label turns up (see the module)."""
    labels = _Labels()
    chances = Chances()
    places: dict[Path, _Place] = {}
    counts = range(game.min_players, game.max_players + 1)
    last_new = 0
    played = 0
    size = 0
    while played < MIN_GAMES or played < 2 * last_new:
        if played == MAX_GAMES:
            raise RulekitError(
                f"{game.name}: cannot fix an action space: new action labels still turned up "
                f"after {MAX_GAMES} random games ({len(labels.met)} labels so far); a label "
                "made from many values (a free text, a large number) cannot be given an id")
        players = counts[played % len(counts)]
        _play(game, players, played, labels, chances, places if played < LAYOUT_GAMES else None)
        played += 1
        if labels.size() != size:
            size = labels.size()
            last_new = played
        if len(labels.met) > MAX_ACTIONS:
            raise RulekitError(f"{game.name}: cannot fix an action space: more than "
                               f"{MAX_ACTIONS} action labels")
    space = labels.space()
    if len(space) > MAX_ACTIONS:
        raise RulekitError(f"{game.name}: cannot fix an action space: more than "
                           f"{MAX_ACTIONS} action labels")
    _finish_places(places)
    return Encoding(sorted(space), places, played, counts, chances)


def _play(game: Game, players: int, seed: int, labels: _Labels, chances: Chances,
          places: dict[Path, _Place] | None) -> None:
    """One random game; notes its labels, its chance steps and (with `places`) its views."""
    rng = random.Random(seed)
    st: State = game.new_game(players, seed=seed)
    steps = 0
    while not st.is_over:
        steps += 1
        if places is not None and steps % LAYOUT_EVERY == 0:
            seat = st.current_player
            _record(places, st.view(st.active if seat is None else seat))
        if st.is_chance:
            chances.note(st)
            st.resolve_chance()
            continue
        actions = st.legal_actions()
        for action in actions:
            labels.add(action.label)
        st.apply(rng.choice(actions))
    if places is not None:
        for seat in range(players):
            _record(places, st.view(seat))


#: encodings by a digest of the file's content and params, the latest last
_CACHE: dict[str, Encoding] = {}
_CACHE_SIZE = 32


def encoding_of(game: Game) -> Encoding:
    """The game's encoding, explored once per process for a file's content and params."""
    text = json.dumps([game.spec, game.params], sort_keys=True, default=str)
    key = hashlib.sha256(text.encode("utf-8")).hexdigest()
    found = _CACHE.pop(key, None)
    if found is None:
        found = explore(game)
        while len(_CACHE) >= _CACHE_SIZE:
            del _CACHE[next(iter(_CACHE))]
    _CACHE[key] = found
    return found
