"""Decks of cards: one card of every suit and rank, moved between named zones.

The file names the suits and the ranks (lowest first), so a deck of 52, 32 or 24 cards
is the same kind. Zones hold the cards: game-wide ones (a draw pile, the trick, the
discard) and per-player ones (hands, captured cards), each seen by everyone, by its
owner only, or by nobody. The deal is a chance step: sampled, a shuffle of the whole
deck by the game's RNG; imposed, the whole deck in dealing order; `shuffle` shuffles the
draw pile alone. `view(seat)` and `determinize` treat a zone a seat cannot see as the
tile sets treat hidden hands.
"""

from __future__ import annotations

from bisect import insort
from operator import attrgetter
from typing import Any

from rulekit.components.base import Chance, Effect, Kind, register, shuffle
from rulekit.components.fixed import MAX_ITEMS, fixed_value, hands_fit
from rulekit.components.markup import card, card_backs, esc
from rulekit.errors import FlowError, PieceError
from rulekit.expr import ANY, BOOL, INT, STR, ListT, Method, ObjT, Scope
from rulekit.expr.budget import charge

#: who sees the cards of a zone
SEEN_BY = ("everyone", "owner", "nobody")
#: what a deck's own type offers; zone names may not take these
DECK_ATTRS = ("suits", "ranks", "all", "card", "st", "kind", "seat")


class Card:
    """One card: immutable and shared by every state of a game."""

    __slots__ = ("suit", "rank", "value", "id", "name")

    def __init__(self, suit: str, rank: Any, value: int, id: int) -> None:
        self.suit = suit
        self.rank = rank
        self.value = value  # the rank's place in `ranks`: higher beats lower
        self.id = id  # the card's place in the deck, suit by suit: the order of a sorted zone
        self.name = f"{rank}{suit}"

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Card({self.name})"


_by_id = attrgetter("id")


def _has_suit(cards: list[Card], suit: str) -> bool:
    return any(c.suit == suit for c in cards)


def _of_suit(cards: list[Card], suit: str) -> list[Card]:
    return [c for c in cards if c.suit == suit]


def _follow(cards: list[Card], suit: str) -> list[Card]:
    same = [c for c in cards if c.suit == suit]
    return same or list(cards)


def _winner(cards: list[Card], trump: str) -> int:
    if not cards:
        return -1
    best = 0
    for i in range(1, len(cards)):
        c, b = cards[i], cards[best]
        if (c.suit == b.suit and c.value > b.value) or (c.suit == trump != b.suit):
            best = i
    return best


class Zone:
    """A zone as declared: where it is, whose it is, who sees it, whether it is sorted."""

    __slots__ = ("name", "at", "per_player", "seen_by", "sorted")

    def __init__(self, name: str, at: int, per_player: bool, seen_by: str,
                 sorted_: bool) -> None:
        self.name = name
        self.at = at
        self.per_player = per_player
        self.seen_by = seen_by
        self.sorted = sorted_

    def visible(self, owner: int | None, seat: int | None) -> bool:
        """Whether `seat` (None: an observer who sees all) sees the cards held by `owner`."""
        return (seat is None or self.seen_by == "everyone"
                or (self.seen_by == "owner" and owner == seat))


class ZoneView:
    """The cards of one zone: `player.cards.hand.cards`, `cards.trick.first`, ..."""

    __slots__ = ("cards_", "deck", "zone", "seat")

    def __init__(self, cards: list, deck: Deck, zone: Zone, seat: int | None) -> None:
        self.cards_ = cards
        self.deck = deck
        self.zone = zone
        self.seat = seat

    @property
    def cards(self) -> list[Card]:
        """The cards in the zone's order (a copy: effects may change the zone)."""
        return list(self.cards_)

    @property
    def size(self) -> int:
        return len(self.cards_)

    @property
    def first(self) -> Card | None:
        """The first card (the top of a pile, the card led to a trick), or none."""
        return self.cards_[0] if self.cards_ else None

    @property
    def last(self) -> Card | None:
        return self.cards_[-1] if self.cards_ else None

    def holds(self, card: Card) -> bool:
        charge(len(self.cards_))
        return card in self.cards_

    def has_suit(self, suit: str) -> bool:
        charge(len(self.cards_))
        return _has_suit(self.cards_, suit)

    def of_suit(self, suit: str) -> list[Card]:
        charge(len(self.cards_))
        return _of_suit(self.cards_, suit)

    def follow(self, suit: str) -> list[Card]:
        """The cards that follow `suit`: those of the suit, or every card when there is none
        of it (or no suit is led: '')."""
        charge(len(self.cards_))
        return _follow(self.cards_, suit)

    def winner(self, trump: str) -> int:
        """Where the card that takes the trick stands: the highest of `trump` ('' for none),
        or else the highest of the first card's suit; -1 for an empty zone."""
        charge(len(self.cards_))
        return _winner(self.cards_, trump)

    # ---- effects ------------------------------------------------------------------------
    def _put(self, card: Card) -> None:
        if self.zone.sorted:
            insort(self.cards_, card, key=_by_id)
        else:
            self.cards_.append(card)

    def _move(self, card: Card, to: ZoneView) -> None:
        try:
            self.cards_.remove(card)
        except ValueError:
            raise PieceError(f"{self} does not hold {card}") from None
        to._put(card)

    def _draw(self, to: ZoneView, count: int | None) -> None:
        for _ in range(1 if count is None else count):
            if not self.cards_:
                return
            to._put(self.cards_.pop(0))

    def _move_all(self, to: ZoneView) -> None:
        cards = list(self.cards_)
        self.cards_.clear()
        for c in cards:
            to._put(c)

    def _rebind(self, st: Any) -> ZoneView:
        if self.seat is None:
            return getattr(st.gviews[self.deck.index], self.zone.name)
        return getattr(st.players[self.seat].view_of(self.deck), self.zone.name)

    def __str__(self) -> str:
        owner = "" if self.seat is None else f" of player {self.seat}"
        return f"{self.zone.name}{owner}"


class _Zones:
    """A view whose attributes are zones: the deck's game-wide zones, or one player's."""

    def __init__(self, zones: dict[str, ZoneView]) -> None:
        self.__dict__.update(zones)


class DeckView(_Zones):
    """The deck: `cards.suits`, `cards.ranks`, `cards.all`, `cards.card('QH')`, its
    game-wide zones by name."""

    def __init__(self, st: Any, deck: Deck) -> None:
        s = st.comps[deck.index]
        super().__init__({z.name: ZoneView(s[z.at], deck, z, None)
                          for z in deck.zones if not z.per_player})
        self.st = st
        self.kind = deck

    @property
    def suits(self) -> list[str]:
        return self.kind.suits

    @property
    def ranks(self) -> list:
        return self.kind.ranks

    @property
    def all(self) -> list[Card]:
        return self.kind.cards

    def card(self, name: str) -> Card | None:
        """The card of that name (rank then suit, as in labels), or none."""
        return self.kind.by_name.get(name)

    def _rebind(self, st: Any) -> DeckView:
        return st.gviews[self.kind.index]


class SeatView(_Zones):
    """One player's zones of a deck: `player.cards.hand`, `player.cards.won`."""

    def __init__(self, st: Any, deck: Deck, seat: int) -> None:
        s = st.comps[deck.index]
        super().__init__({z.name: ZoneView(s[z.at][seat], deck, z, seat)
                          for z in deck.zones if z.per_player})
        self.kind = deck
        self.seat = seat

    def _rebind(self, st: Any) -> SeatView:
        return st.players[self.seat].view_of(self.kind)


#: the type of a zone argument; object types fit by name
ZONE_T = ObjT("Zone")


@register
class Deck(Kind):
    kind = "deck"
    schema = {
        "type": "object",
        "required": ["suits", "ranks", "zones", "deal"],
        "properties": {
            "suits": {"description": "the suits' names: a list, or an expression of params",
                      "type": ["array", "string"]},
            "ranks": {"description": "the ranks, lowest first (numbers or names): a list, or an "
                                     "expression of params; a card is named rank then suit",
                      "type": ["array", "string"]},
            "zones": {
                "description": "where cards lie, by name: game-wide, or `per: player`",
                "type": "object",
                "minProperties": 1,
                "additionalProperties": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "per": {"enum": ["player", "game"]},
                        "seen_by": {"description": "who sees its cards (default everyone; "
                                                   "owner: a player's own zone)",
                                    "enum": list(SEEN_BY)},
                        "sorted": {"description": "keep its cards in the deck's order, suit by "
                                                  "suit (default: in the order they came)",
                                   "type": "boolean"},
                    },
                },
            },
            "deal": {
                "description": "what `deal:` does: shuffle the whole deck, give `count` cards "
                               "to each player's zone `to`, the rest to the game-wide zone `rest`",
                "type": "object",
                "required": ["to", "count", "rest"],
                "additionalProperties": False,
                "properties": {
                    "to": {"type": "string"},
                    "count": {"description": "cards per player: an expression of the game "
                                             "(params, variables, player_count)",
                              "type": ["integer", "string"]},
                    "rest": {"type": "string"},
                },
            },
        },
    }
    effects = {
        "move_card": Effect("from", "Zone", "_move", {"card": ANY, "to": ZONE_T},
                            doc="move a card from one zone to another; a card the zone does "
                                "not hold is an error of the rules"),
        "draw_card": Effect("from", "Zone", "_draw", {"to": ZONE_T, "count": INT},
                            optional=("count",),
                            doc="move the first `count` cards (default 1) of a zone to another; "
                                "an empty zone gives what it has"),
        "move_all": Effect("from", "Zone", "_move_all", {"to": ZONE_T},
                           doc="move every card of a zone to another"),
    }

    def declare(self, b: Any) -> None:
        if self.per_player:
            b.error(b.path + ("per",), "a deck is shared: its zones say whose they are",
                    "remove `per: player`; give a zone `per: player` instead")
        conf = self.config
        suits = fixed_value(b, b.path + ("suits",), conf.get("suits"), ListT(STR)) or []
        ranks = fixed_value(b, b.path + ("ranks",), conf.get("ranks"), ListT(ANY)) or []
        rank_t = INT if all(type(r) is int for r in ranks) else STR
        ok = True
        if rank_t is STR and not all(type(r) is str for r in ranks):
            b.error(b.path + ("ranks",), "ranks must be all names or all whole numbers",
                    "quote numbers that are meant as names: ['7', '8', J, Q]")
            ok = False
        for what, values in (("suits", suits), ("ranks", ranks)):
            if ok and (len(set(values)) != len(values) or not values):
                b.error(b.path + (what,), f"{what} need distinct names, at least one",
                        "for example suits: [C, D, H, S]")
                ok = False
        if not ok:
            suits, ranks = [], []
        if len(suits) * len(ranks) > MAX_ITEMS:
            b.error(b.path + ("ranks",), f"{len(suits)} suits of {len(ranks)} ranks make "
                    f"more than the {MAX_ITEMS} cards a deck may have")
            suits, ranks = [], []
        self.suits, self.ranks = list(suits), list(ranks)
        self.cards = [Card(s, r, v, i * len(ranks) + v)
                      for i, s in enumerate(suits) for v, r in enumerate(ranks)]
        self.by_name = {c.name: c for c in self.cards}
        if len(self.by_name) != len(self.cards):
            b.error(b.path + ("ranks",), "two cards would have the same name (rank then suit)",
                    "choose ranks and suits whose names do not run together")
        self.zones: list[Zone] = []
        for name, z in (conf.get("zones") or {}).items():
            path = b.path + ("zones", name)
            if name in DECK_ATTRS or not str(name).isidentifier() or str(name).startswith("_"):
                b.error(path, f"'{name}' cannot name a zone",
                        f"a zone needs a name of letters, digits and _ that is not "
                        f"{', '.join(DECK_ATTRS)}")
                continue
            per = z.get("per") == "player"
            seen = z.get("seen_by", "everyone")
            if seen == "owner" and not per:
                b.error(path + ("seen_by",), "only a player's zone has an owner",
                        "add `per: player`, or say everyone or nobody")
            self.zones.append(Zone(str(name), len(self.zones), per, seen,
                                   bool(z.get("sorted", False))))
        self.zone_by_name = {z.name: z for z in self.zones}
        self.hides_information = any(z.seen_by != "everyone" for z in self.zones)
        deal = conf.get("deal") or {}
        self.deal_to = self._zone(b, deal, "to", True)
        self.deal_rest = self._zone(b, deal, "rest", False)
        self.card_t = ObjT("Card", {"suit": STR, "rank": rank_t, "value": INT, "name": STR})
        self.card_t.printable = True  # its name
        zone_t = ObjT("Zone", {"cards": ListT(self.card_t), "size": INT, "first": self.card_t,
                               "last": self.card_t}, {
            "holds": Method([self.card_t], BOOL), "has_suit": Method([STR], BOOL),
            "of_suit": Method([STR], ListT(self.card_t)),
            "follow": Method([STR], ListT(self.card_t)), "winner": Method([STR], INT),
        })
        zone_t.printable = True  # its name, and whose it is
        self.zone_t = zone_t
        self.type = ObjT("Deck", {"suits": ListT(STR), "ranks": ListT(rank_t),
                                  "all": ListT(self.card_t)},
                         {"card": Method([STR], self.card_t)})
        self.type.attrs.update({z.name: zone_t for z in self.zones if not z.per_player})
        self.seat_t = ObjT("DeckSeat", {z.name: zone_t for z in self.zones if z.per_player})
        # a per-player part exists when some zone is a player's: `player.NAME.ZONE`
        self.per_player = any(z.per_player for z in self.zones)

    def _zone(self, b: Any, deal: dict, key: str, per_player: bool) -> Zone | None:
        name = deal.get(key)
        zone = self.zone_by_name.get(name)
        if zone is None:
            if name is not None:
                b.unknown(b.path + ("deal", key), "zone", name, list(self.zone_by_name))
            return None
        if zone.per_player != per_player:
            b.error(b.path + ("deal", key), f"the deal's `{key}` must be "
                    + ("a player's zone (`per: player`)" if per_player else "a game-wide zone"))
            return None
        return zone

    def compile(self, b: Any, scope: Scope) -> None:
        path = b.path + ("deal", "count")
        c = b.expr(path, (self.config.get("deal") or {}).get("count", 0), scope, INT)
        self.count = c.fn if c is not None else (lambda st, env: 0)
        self.count_c = c  # what the flat play writes out
        self.count_where = b.where(path)
        if c is None or not self.cards:
            return
        # a count of params and the player count is checked now, for every player count;
        # one that follows the game's course (a variable) is checked when it deals
        hands_fit(b, path, self.count, len(self.cards), "card", "deck",
                  f"count times the player count may be at most {len(self.cards)}",
                  follows_the_game=True)

    def global_type(self) -> ObjT:
        return self.type

    def player_type(self) -> ObjT:
        return self.seat_t

    # ---- state: one list per zone (a list per seat for a player's zone) ---------------------
    def new_state(self, st: Any) -> list:
        return [[[] for _ in range(st.n)] if z.per_player else [] for z in self.zones]

    def copy_state(self, s: list) -> list:
        return [[list(h) for h in zs] if z.per_player else list(zs)
                for z, zs in zip(self.zones, s)]

    def global_view(self, st: Any) -> DeckView:
        return DeckView(st, self)

    def player_view(self, st: Any, seat: int) -> SeatView:
        return SeatView(st, self, seat)

    def state_size(self, st: Any) -> dict[str, int]:
        s = st.comps[self.index]
        return {"cards": sum(sum(map(len, zs)) if z.per_player else len(zs)
                             for z, zs in zip(self.zones, s))}

    def _piles(self, st: Any) -> list[tuple[Zone, int | None, list]]:
        """Every pile of cards: (zone, owner or None, the list)."""
        s = st.comps[self.index]
        out = []
        for z in self.zones:
            if z.per_player:
                out.extend((z, p, h) for p, h in enumerate(s[z.at]))
            else:
                out.append((z, None, s[z.at]))
        return out

    def redeal_unseen(self, st: Any, seat: int, rng: Any) -> None:
        """Deal the cards `seat` cannot see anew among the piles that hide them, each keeping
        its size; the pool is sorted first so that it carries nothing of where cards were."""
        hidden = [(z, h) for z, p, h in self._piles(st) if not z.visible(p, seat)]
        pool = sorted([c for _z, h in hidden for c in h], key=_by_id)
        shuffle(rng, pool)
        k = 0
        for z, h in hidden:
            n = len(h)
            h[:] = sorted(pool[k:k + n], key=_by_id) if z.sorted else pool[k:k + n]
            k += n

    def snapshot(self, st: Any, seat: int | None) -> dict:
        out: dict[str, Any] = {}
        for z, p, h in self._piles(st):
            entry: dict[str, Any] = {"count": len(h)}
            if z.visible(p, seat):
                entry["cards"] = [c.name for c in h]
            if z.per_player:
                out.setdefault(z.name, []).append(entry)
            else:
                out[z.name] = entry
        return out

    def render(self, st: Any, seat: int | None) -> str:
        lines = [_zone_text(z, None, h, seat) for z, p, h in self._piles(st) if p is None]
        return "\n".join(lines)

    def render_player(self, st: Any, player: int, seat: int | None) -> str:
        return "\n".join(("your " if seat == player and z.seen_by == "owner" else "")
                         + _zone_text(z, p, h, seat)
                         for z, p, h in self._piles(st) if p == player)

    def html(self, st: Any, seat: int | None) -> str:
        """The game-wide zones (the trick, the pile turned up, the stock) as cards."""
        return "".join(self._zone_html(z, p, h, seat) for z, p, h in self._piles(st)
                       if p is None)

    def html_player(self, st: Any, player: int, seat: int | None) -> str:
        """`player`'s zones as cards: faces where `seat` may see them, backs elsewhere."""
        return "".join(self._zone_html(z, p, h, seat) for z, p, h in self._piles(st)
                       if p == player)

    def _zone_html(self, z: Zone, owner: int | None, cards: list[Card], seat: int | None,
                   ) -> str:
        """A zone's cards face up, or as many backs as it holds when `seat` may not see it
        (nothing of a hidden card reaches the page). On a player's page every card shown is
        a piece to click by its name: the ones a choice names become clickable."""
        n = len(cards)
        count = f'<span class="count">{n} card{"" if n == 1 else "s"}</span>'
        head = (f'data-zone="{esc(z.name)}" data-count="{n}"><span class="name">'
                f'{"your " if seat == owner is not None and z.seen_by == "owner" else ""}'
                f"{esc(z.name)}</span>")
        if not z.visible(owner, seat):
            return f'<div class="zone hidden" {head}{card_backs(n)}{count}</div>'
        faces = "".join(card(c.name, c.rank, c.suit, self.suits.index(c.suit),
                             picks=seat is not None) for c in cards)
        return f'<div class="zone" {head}{faces or "none"}{count if n > 1 else ""}</div>'

    # ---- the deal ---------------------------------------------------------------------------
    def _sample(self, view: DeckView, rng: Any) -> list[str]:
        order = list(self.cards)
        shuffle(rng, order)
        return [c.name for c in order]

    def _check(self, view: DeckView, outcome: Any) -> str | None:
        if not isinstance(outcome, list) or len(outcome) != len(self.cards):
            return f"a deal is the whole deck in dealing order: {len(self.cards)} card names"
        seen: set[str] = set()
        for name in outcome:
            if not isinstance(name, str) or name not in self.by_name:
                return f"{name!r} is not a card of the deck"
            if name in seen:
                return f"{name} is dealt twice"
            seen.add(name)
        return self._fits(view.st)

    def _fits(self, st: Any) -> str | None:
        size = self.count(st, {})
        if size < 0 or st.n * size > len(self.cards):
            return (f"{self.count_where}: {st.n} hands of {size} cards do not fit a deck of "
                    f"{len(self.cards)} cards")
        return None

    def _apply(self, view: DeckView, outcome: Any) -> None:
        st = view.st
        why = self._fits(st)
        if why:
            raise FlowError(why)
        if self.deal_to is None or self.deal_rest is None:
            raise FlowError("the deck has no `deal:` zones")
        order = [self.by_name[name] for name in outcome]
        for _z, _p, h in self._piles(st):
            h.clear()
        s = st.comps[self.index]
        size = self.count(st, {})
        to = self.deal_to
        for p, h in enumerate(s[to.at]):
            part = order[p * size:(p + 1) * size]
            h[:] = sorted(part, key=_by_id) if to.sorted else part
        rest = order[st.n * size:]
        s[self.deal_rest.at][:] = sorted(rest, key=_by_id) if self.deal_rest.sorted else rest


    # ---- shuffling the draw pile -----------------------------------------------------------
    def _pile(self, view: DeckView) -> list[Card]:
        if self.deal_rest is None:
            raise FlowError("the deck has no `deal:` zones")
        return view.st.comps[self.index][self.deal_rest.at]

    def _sample_shuffle(self, view: DeckView, rng: Any) -> list[str]:
        order = sorted(self._pile(view), key=_by_id)  # where cards were tells nothing
        shuffle(rng, order)
        return [c.name for c in order]

    def _check_shuffle(self, view: DeckView, outcome: Any) -> str | None:
        pile = self._pile(view)
        if (not isinstance(outcome, list) or len(outcome) != len(pile)
                or not all(isinstance(n, str) for n in outcome)):
            return (f"a shuffle is the {len(pile)} cards of {self.deal_rest.name} in their "
                    "new order, as card names")
        if sorted(outcome) != sorted(c.name for c in pile):
            return f"a shuffle holds exactly the cards of {self.deal_rest.name}"
        return None

    def _apply_shuffle(self, view: DeckView, outcome: Any) -> None:
        self._pile(view)[:] = [self.by_name[name] for name in outcome]

    # ---- the flat backend's form: each zone as the state's own list (cz{index}_{place}; a
    # player's zone a list per seat), a card as the Card itself (immutable and shared, so `in`
    # and `==` compare it as the machine does); a zone's value carries its Zone (FlatZone) --
    #: its effects run no steps of their own (the flat backend checks the end by what they write)
    flat_runs_steps = False

    def flat_types(self) -> list:
        return [self.type, self.seat_t, self.zone_t, self.card_t]

    def flat_bind(self, gen: Any) -> list[str]:
        i = int(self.index)
        return [f"cz{i}_{z.at} = comps[{i}][{z.at}]" for z in self.zones]

    def flat_restore(self, s: list, old: list) -> None:
        for z, now, then in zip(self.zones, s, old):
            if z.per_player:
                for h, was in zip(now, then):
                    h[:] = was
            else:
                now[:] = then

    def flat_same(self, type_: Any) -> bool:
        """Whether the flat values of `type_` are the machine's own objects (cards)."""
        return type_ is self.card_t

    def _flat_card(self, gen: Any, src: str | None = None) -> Any:
        return gen.value(src, self.card_t, self)

    def flat_attr(self, gen: Any, base: Any, name: str, type_: Any) -> Any:
        c = gen.w.c
        i = int(self.index)
        if base.type is self.card_t:
            if name in ("suit", "rank", "value", "name"):
                return gen.value(f"{base.need()}.{name}", type_)
        elif base.type is self.type:
            zone = self.zone_by_name.get(name)
            if zone is not None and not zone.per_player:
                return gen.value(f"cz{i}_{zone.at}", type_, FlatZone(self, zone))
            if name in ("suits", "ranks"):  # the file's lists (expressions never change one)
                return gen.value(c(getattr(self, name)), type_, size=len(getattr(self, name)))
            if name == "all":
                return gen.value(c(self.cards), type_, size=len(self.cards),
                                 elem=self._flat_card(gen))
        elif base.type is self.seat_t:
            zone = self.zone_by_name.get(name)
            if zone is not None and zone.per_player and base.seat is not None:
                return gen.value(f"cz{i}_{zone.at}[{base.seat}]", type_,
                                 FlatZone(self, zone), base.seat)
        raise gen.uncovered(f"{base.type.name}.{name}")

    def flat_index(self, gen: Any, base: Any, key: Any, type_: Any) -> Any:
        raise gen.uncovered(f"{base.type.name}[...]")

    def flat_method(self, gen: Any, base: Any, name: str, args: list, type_: Any) -> Any:
        if base.type is self.type and name == "card":
            return self._flat_card(gen, f"{gen.w.c(self.by_name)}.get({args[0].need()})")
        raise gen.uncovered(f"{base.type.name}.{name}()")

    def flat_zone_attr(self, gen: Any, zone: Zone, base: Any, name: str, type_: Any) -> Any:
        """A zone's attribute (ZoneView's)."""
        z = base.need()
        if name == "cards":  # a copy, as ZoneView.cards (a `let` keeps it across a move)
            v = gen.value(f"list({z})", type_, size=len(self.cards), elem=self._flat_card(gen))
            v.length = f"len({z})"
            return v
        if name == "size":
            return gen.value(f"len({z})", type_)
        if name in ("first", "last"):
            return self._flat_card(gen, f"({z}[{0 if name == 'first' else -1}] if {z} else None)")
        if name == "name":  # its text, as ZoneView.__str__
            text = gen.w.c(zone.name)
            if base.seat is None:
                return gen.value(text, type_)
            return gen.value(f"({text} + {gen.w.c(' of player ')} + str({base.seat}))", type_)
        raise gen.uncovered(f"Zone.{name}")

    def flat_zone_method(self, gen: Any, base: Any, name: str, args: list, type_: Any) -> Any:
        """A zone's methods, as ZoneView's; their work bounded as a loop over the deck (the
        machine charges the zone's size)."""
        c = gen.w.c
        gen.longest = max(gen.longest, len(self.cards))
        z, a = base.need(), args[0].need()
        if name == "holds":
            return gen.value(f"({a} in {z})", type_)
        fn = {"has_suit": _has_suit, "of_suit": _of_suit, "follow": _follow,
              "winner": _winner}.get(name)
        if fn is None:
            raise gen.uncovered(f"Zone.{name}()")
        if isinstance(type_, ListT):
            return gen.value(f"{c(fn)}({z}, {a})", type_, size=len(self.cards),
                             elem=self._flat_card(gen))
        return gen.value(f"{c(fn)}({z}, {a})", type_)

    def flat_put(self, gen: Any, to: Any, card: str, d: int) -> None:
        """A card put into the zone `to`, as ZoneView._put."""
        if not isinstance(to.kind, FlatZone) or to.kind.deck is not self:
            raise gen.uncovered("cards moved to something other than a zone of their deck")
        if to.kind.zone.sorted:
            gen.w.add(d, f"{gen.w.c(insort)}({to.need()}, {card}, key={gen.w.c(_by_id)})")
        else:
            gen.w.add(d, f"{to.need()}.append({card})")

    def flat_zone_effect(self, gen: Any, method: str, target: Any, args: list,
                         d: int) -> None:
        """`move_card`, `draw_card` and `move_all`, as ZoneView's: a card the zone does not
        hold is a ValueError, and the machine plays the game (its PieceError)."""
        w = gen.w
        z = target.need()
        x = w.t("t")
        if method == "_move":
            card, to = args
            w.add(d, f"{x} = {card.need()}")
            w.add(d, f"{z}.remove({x})")
            self.flat_put(gen, to, x, d)
        elif method == "_draw":
            to, count = args
            k = w.t("k")
            w.add(d, f"for {k} in range({1 if count is None else count.need()}):")
            w.add(d + 1, f"if not {z}: break")
            w.add(d + 1, f"{x} = {z}.pop(0)")
            self.flat_put(gen, to, x, d + 1)
        elif method == "_move_all":
            to, = args
            k = w.t("k")
            w.add(d, f"{k} = list({z})")
            w.add(d, f"{z}.clear()")
            w.add(d, f"for {x} in {k}:")
            self.flat_put(gen, to, x, d + 1)
        else:
            raise gen.uncovered(f"the deck's effect {method.lstrip('_')}")

    def flat_effect(self, gen: Any, method: str, target: Any, args: list, env: dict,
                    d: int) -> None:
        raise gen.uncovered(f"the deck's effect {method.lstrip('_')} on {target.type.name}")

    def flat_chance(self, gen: Any, name: str, d: int) -> None:
        """`deal`, as `_sample` and `_apply` deal (the whole deck shuffled by the game's RNG,
        every zone emptied, `count` cards to each player's `to` zone, the rest to `rest`; a
        count that does not fit gives the game back); `shuffle`, the `rest` zone shuffled
        from the deck's order."""
        i = int(self.index)
        w = gen.w
        c = w.c
        if self.deal_to is None or self.deal_rest is None:
            raise gen.uncovered("a deck without `deal:` zones")
        rest = f"cz{i}_{self.deal_rest.at}"
        o = w.t("o")
        if name == "shuffle":
            w.add(d, f"{o} = sorted({rest}, key={c(_by_id)})")
            w.add(d, f"{w.c(shuffle)}(grng, {o})")
            w.add(d, f"{rest}[:] = {o}")
            gen.record(d, o)
            return
        if name != "deal":
            raise gen.uncovered(f"`{name}` of a deck")
        if self.count_c is None:
            raise gen.uncovered("a deal whose count did not compile")
        size = w.t("z")
        # the count worked out before the shuffle (the machine's after it: the same number,
        # and a count that fails gives the game back before it draws)
        w.add(d, f"{size} = {gen.expr(self.count_c, {}).need()}")
        w.add(d, f"if {size} < 0 or n * {size} > {len(self.cards)}: raise GiveBack")
        w.add(d, f"{o} = list({c(self.cards)})")
        w.add(d, f"{w.c(shuffle)}(grng, {o})")
        h = w.t("h")
        for z in self.zones:  # every zone emptied; the deal's own ones are set below
            if z is self.deal_rest or z is self.deal_to:
                continue
            if z.per_player:
                w.add(d, f"for {h} in cz{i}_{z.at}: {h}.clear()")
            else:
                w.add(d, f"cz{i}_{z.at}.clear()")
        p = w.t("p")
        part = f"{o}[{p} * {size}:({p} + 1) * {size}]"
        w.add(d, f"for {p}, {h} in enumerate(cz{i}_{self.deal_to.at}):")
        w.add(d + 1, f"{h}[:] = " + (f"sorted({part}, key={c(_by_id)})"
                                     if self.deal_to.sorted else part))
        part = f"{o}[n * {size}:]"
        w.add(d, f"{rest}[:] = " + (f"sorted({part}, key={c(_by_id)})"
                                    if self.deal_rest.sorted else part))
        gen.record(d, o)

    def flat_outcome(self, view: DeckView, order: list) -> list[str]:
        """A deal's or a shuffle's outcome from the order the flat play recorded."""
        return [card.name for card in order]


class FlatZone:
    """What a zone's value is in the flat code: its deck and its Zone, which say how the
    zone's attributes, methods and effects are written (its `kind`, for the writer)."""

    flat_runs_steps = False

    def __init__(self, deck: Deck, zone: Zone) -> None:
        self.deck = deck
        self.zone = zone

    def flat_attr(self, gen: Any, base: Any, name: str, type_: Any) -> Any:
        return self.deck.flat_zone_attr(gen, self.zone, base, name, type_)

    def flat_index(self, gen: Any, base: Any, key: Any, type_: Any) -> Any:
        raise gen.uncovered("Zone[...]")

    def flat_method(self, gen: Any, base: Any, name: str, args: list, type_: Any) -> Any:
        return self.deck.flat_zone_method(gen, base, name, args, type_)

    def flat_same(self, type_: Any) -> bool:
        return self.deck.flat_same(type_)

    def flat_effect(self, gen: Any, method: str, target: Any, args: list, env: dict,
                    d: int) -> None:
        self.deck.flat_zone_effect(gen, method, target, args, d)


def _zone_text(z: Zone, owner: int | None, cards: list[Card], seat: int | None) -> str:
    n = f"{len(cards)} card" + ("" if len(cards) == 1 else "s")
    if not z.visible(owner, seat):
        return f"{z.name}: {n} (hidden)"
    names = " ".join(c.name for c in cards) or "(none)"
    return f"{z.name}: {names}" + (f"  ({n})" if len(cards) > 1 else "")


Deck.chances = {
    "deal": Chance(
        sample=lambda view, rng: view.kind._sample(view, rng),
        check=lambda view, outcome: view.kind._check(view, outcome),
        apply=lambda view, outcome: view.kind._apply(view, outcome),
        doc="gather every card, shuffle the deck and deal `count` cards to each player; "
            "the rest goes to the `rest` zone",
        public=False,
    ),
    "shuffle": Chance(
        sample=lambda view, rng: view.kind._sample_shuffle(view, rng),
        check=lambda view, outcome: view.kind._check_shuffle(view, outcome),
        apply=lambda view, outcome: view.kind._apply_shuffle(view, outcome),
        doc="shuffle the deck's draw pile (the deal's `rest` zone), e.g. after the "
            "discards are put back into it",
        public=False,
    ),
}
