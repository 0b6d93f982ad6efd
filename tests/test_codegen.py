"""Generated code: the same games as the closure path, and a shape no game file can change."""

from __future__ import annotations

import io
import random
import re
import tokenize
from pathlib import Path

import pytest
from click.testing import CliRunner

import rulekit
from rulekit.backends import codegen, flowgen, pysource
from rulekit.bots import GreedyAgent
from rulekit.cli import main

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted(p for p in (ROOT / "games").glob("*.yaml") if ".tests." not in p.name)
PLAYERS = {"qwixx": 3, "levelx": 2, "domino7": 4}


def load(path: Path, generated: bool) -> rulekit.Game:
    """The game with every part as generated code, or every part as closures."""
    old = codegen.ENABLED, pysource.FUNCTIONS, flowgen.ENABLED
    codegen.ENABLED = pysource.FUNCTIONS = flowgen.ENABLED = generated
    try:
        return rulekit.load_game(path)
    finally:
        codegen.ENABLED, pysource.FUNCTIONS, flowgen.ENABLED = old


def course(game: rulekit.Game, players: int, seed: int) -> list:
    """Every decision's legal labels and choice, the log and the scores of a random game."""
    state = game.new_game(players=players, seed=seed)
    rng = random.Random(seed)
    seen = []
    while not state.is_over:
        if state.is_chance:
            state.resolve_chance()
        else:
            labels = [a.label for a in state.legal_actions()]
            choice = rng.choice(labels)
            seen.append((state.current_player, labels, choice))
            state.apply(choice)
    return [seen, state.log, state.scores(), state.end_reason]


def same_playouts(fast: rulekit.Game, slow: rulekit.Game, players: int, seed: int) -> None:
    """A playout of each game from `seed` plays the same game: the same log and scores."""
    runs = [game.new_game(players=players, seed=seed) for game in (fast, slow)]
    for state in runs:
        state.playout(random.Random(seed))
    assert runs[0].log == runs[1].log and runs[0].log, seed
    assert runs[0].scores() == runs[1].scores(), seed


@pytest.mark.parametrize("path", GAMES, ids=[p.stem for p in GAMES])
def test_generated_code_plays_the_same_games_as_the_closures(path: Path) -> None:
    fast, slow = load(path, True), load(path, False)
    assert fast.generated and not slow.generated
    base = path.stem.split("-")[0]
    players = PLAYERS.get(base, fast.min_players)
    for seed in range(25):
        assert course(fast, players, seed) == course(slow, players, seed), seed


def random_game(game: rulekit.Game, players: int, seed: int) -> rulekit.State:
    """A random game through the public calls, one move at a time (a decision of one
    option draws nothing from the RNG)."""
    state, rng = game.new_game(players=players, seed=seed), random.Random(seed)
    while not state.is_over:
        if state.is_chance:
            state.resolve_chance()
        else:
            actions = state.legal_actions()
            state.apply(actions[rng.randrange(len(actions))] if len(actions) > 1 else actions[0])
    return state


EXAMPLES = sorted(p for p in (ROOT / "games" / "examples").glob("*.yaml")
                  if ".tests." not in p.name)


@pytest.mark.parametrize("generated", [True, False], ids=["generated", "closures"])
@pytest.mark.parametrize("path", GAMES + EXAMPLES, ids=[p.stem for p in GAMES + EXAMPLES])
def test_the_playout_fast_path_plays_the_same_games_as_one_call_per_move(
        path: Path, generated: bool) -> None:
    """`playout` keeps the options of a decision as records and makes only the action it
    plays; the games are those of `legal_actions()` and `apply` all the same."""
    game = load(path, generated)
    players = PLAYERS.get(path.stem.split("-")[0], game.min_players)
    for seed in range(10):
        slow = random_game(game, players, seed)
        fast = game.new_game(players=players, seed=seed)
        made = fast.playout(random.Random(seed))
        assert fast.is_over
        assert (fast.log, fast.scores(), fast.end_reason) == (slow.log, slow.scores(),
                                                              slow.end_reason), seed
        assert made == sum(1 for e in slow.log if "action" in e and not e.get("forced"))


@pytest.mark.parametrize("path", GAMES, ids=[p.stem for p in GAMES])
def test_a_greedy_playout_plays_the_games_of_the_greedy_bot(path: Path) -> None:
    """`playout(rng, value=GreedyAgent.value)` is the search's fast path for greedy
    playouts: the same moves as `GreedyAgent.choose` called for every decision, in the
    real game (whose previews deal what is hidden anew) and in a determinized copy."""
    game = rulekit.load_game(path)
    players = PLAYERS.get(path.stem.split("-")[0], game.min_players)
    for seed in range(2):
        start = game.new_game(players=players, seed=seed)
        start.playout(random.Random(seed), decisions=3)
        while start.is_chance:
            start.resolve_chance()
        copies = [start.clone(), start.determinize(start.current_player, random.Random(seed))]
        for state in copies:
            slow, rng = state.clone(), random.Random(seed)
            bot = GreedyAgent()
            left = 12
            while not slow.is_over and left:
                if slow.is_chance:
                    slow.resolve_chance()
                    continue
                slow.apply(bot.choose(slow, rng))
                left -= 1
            fast = state.clone()
            assert fast.playout(random.Random(seed), 12, GreedyAgent.value) == 12 - left
            assert (fast.log, fast.scores()) == (slow.log, slow.scores()), seed


def api_moves(state: rulekit.State, rng: random.Random, decisions: int) -> None:
    """`decisions` random moves through the public calls, as `random_game` makes them."""
    while not state.is_over and decisions:
        if state.is_chance:
            state.resolve_chance()
            continue
        actions = state.legal_actions()
        state.apply(actions[rng.randrange(len(actions))] if len(actions) > 1 else actions[0])
        decisions -= 1


@pytest.mark.parametrize("generated", [True, False], ids=["generated", "closures"])
@pytest.mark.parametrize("path", GAMES, ids=[p.stem for p in GAMES])
def test_a_decision_a_playout_stops_at_offers_the_actions_of_the_api(
        path: Path, generated: bool) -> None:
    """A playout that stops after some decisions leaves the next one as records: read
    through the API, it offers the same actions, which play, copy and preview as any."""
    game = load(path, generated)
    players = PLAYERS.get(path.stem.split("-")[0], game.min_players)
    for seed in range(3):
        fast, slow = (game.new_game(players=players, seed=seed) for _ in range(2))
        fast.playout(random.Random(seed), decisions=7)
        api_moves(slow, random.Random(seed), 7)
        assert fast.log == slow.log
        while fast.is_chance:
            fast.resolve_chance()
            slow.resolve_chance()
        labels = [a.label for a in slow.legal_actions()]
        copy = fast.clone()  # copied before its actions were ever made
        assert [a.label for a in fast.legal_actions()] == labels
        assert fast.view(fast.current_player)["legal_actions"] == labels
        last = labels[-1]
        assert fast.preview(last).scores() == slow.preview(last).scores()
        for state in (fast, slow, copy):
            state.apply(last)
        assert fast.log == slow.log == copy.log
        assert fast.scores() == slow.scores() == copy.scores()


def test_a_playout_can_stop_after_some_decisions_and_go_on_later() -> None:
    game = rulekit.load_game(ROOT / "games" / "qwixx.yaml")
    slow = random_game(game, 3, 4)
    fast, rng = game.new_game(players=3, seed=4), random.Random(4)
    assert fast.playout(rng, decisions=5) == 5
    assert not fast.is_over
    assert sum(1 for e in fast.log if "action" in e) == 5
    fast.playout(rng)
    assert fast.log == slow.log


# -- shape: what a file says changes values, never the code --------------------------------

GAME = """\
name: Shape
players: {min: 2, max: 3}
vars:
  @VAR@: {per: player, init: 0}
  @GVAR@: {init: 0}
components:
  dice: {kind: dice, dice: {d1: 6, d2: 6}}
define:
  @DEF@: "@GVAR@ + len('@TEXT@') + sum(@ITEM@ for @ITEM@ in [dice.d1])"
flow:
  turn:
    - roll: dice
    - let: {@OUTER@: "dice.d1 + dice.d2 + @DEF@ * 0"}
    - choose:
        pass: "@PASS@"
        options:
          - for: "@LOOP@ in [dice.d1, dice.d2, @OUTER@], @INNER@ in range(@LOOP@)"
            let: {@LET@: "@LOOP@ * 10 + @INNER@ + player.@VAR@"}
            if: "@LET@ != 7 and '@TEXT@' != str(@LET@)
              and any(@ITEM@ != @LET@ for @ITEM@ in [@LOOP@, @OUTER@])"
            label: "@TEXT@ {@LOOP@}-{@INNER@} {@LET@} '@TEXT@'"
            do:
              - add: {player.@VAR@: 1}
              - for: "@ITEM@ in range(@INNER@ + 1)"
                do:
                  - if: "@ITEM@ % 2 == 0"
                    then:
                      - let: {@STEP@: "@ITEM@ + @LET@"}
                      - add: {player.@VAR@: "@STEP@ % 3"}
                    else:
                      - say: "@TEXT@ {@ITEM@} '@TEXT@'"
              - say: {to: player, text: "'@TEXT@' {player.@VAR@}"}
    - let: {@AFTER@: "@OUTER@ * 2"}
    - set: {@GVAR@: "@AFTER@ + @OUTER@"}
triggers:
  - for: "@WHO@ in players"
    when: "@WHO@.@VAR@ > @GVAR@ + 3"
    do:
      - add: {@GVAR@: 4}
      - say: "'@TEXT@' {@WHO@.seat}"
end:
  when: {done: "turn > 3"}
score: "player.@VAR@"
"""

PLAIN = {"@VAR@": "points", "@OUTER@": "total", "@PASS@": "pass", "@LOOP@": "a",
         "@INNER@": "b", "@LET@": "c", "@TEXT@": "take", "@ITEM@": "i", "@STEP@": "d",
         "@AFTER@": "e", "@GVAR@": "total_sum", "@WHO@": "p", "@DEF@": "worth"}
# names a Python programmer would not want in generated code, and strings that try to
# end a literal and write code
HOSTILE = {"@VAR@": "seen", "@OUTER@": "st", "@PASS@": "pass\\\"); import os #",
           "@LOOP@": "out", "@INNER@": "base", "@LET@": "label",
           "@TEXT@": "x\\\" + __import__(\\\"os\\\").system(\\\"id\\\") + \\\"{{}}\\\\n#",
           # the names of generated step functions' own arguments and temporaries
           "@ITEM@": "env", "@STEP@": "left1", "@AFTER@": "x1", "@GVAR@": "s2", "@WHO@": "n1",
           "@DEF@": "hit"}


def generated(tmp_path: Path, words: dict[str, str]) -> list[str]:
    text = GAME
    for key, value in words.items():
        text = text.replace(key, value)
    path = tmp_path / "shape.yaml"
    path.write_text(text, encoding="utf-8")
    game = rulekit.load_game(path)
    state = game.new_game(players=2, seed=3)
    while not state.is_over:  # the code runs, with the file's values
        if state.is_chance:
            state.resolve_chance()
        else:
            state.apply(state.legal_actions()[-1])
    return game.generated


def shape(source: str) -> list[tuple[int, str]]:
    """The source's tokens, with the compiler's own numbered names made anonymous."""
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in (tokenize.COMMENT, tokenize.NL):
            continue
        text = tok.string
        if tok.type == tokenize.NAME and re.fullmatch(r"[kv]\d+", text):
            text = text[0]
        out.append((tok.type, text))
    return out


def test_hostile_names_and_strings_do_not_change_the_shape(tmp_path: Path) -> None:
    plain = generated(tmp_path, PLAIN)
    hostile = generated(tmp_path, HOSTILE)
    # the define, the any() of the option's condition, the option generator, the action's
    # three steps, the turn's two `let`s and its `set`, the trigger, the checks after a
    # step, the turns
    assert len(plain) == len(hostile) == 12
    assert sum("def get(st):" in a for a in plain) == 1
    assert sum("def scan(st, " in a for a in plain) == 1
    assert sum("def run(st, env):" in a for a in plain) == 6
    assert sum("def fire(st):" in a for a in plain) == 1
    assert sum("def turns(st, cx, start):" in a for a in plain) == 1
    assert sum("def after_step(st):" in a for a in plain) == 1
    differ = set()
    for a, b in zip(plain, hostile):
        sa, sb = shape(a), shape(b)
        assert [t for t, _s in sa] == [t for t, _s in sb]
        differ |= {(x, y) for (_t, x), (_u, y) in zip(sa, sb) if x != y}
        assert "import" not in b and "os" not in re.findall(r"\w+", b)
    # no word differs: a player's variables, like every name from the file, are read by
    # constant keys
    assert differ == set(), differ


def test_the_turns_write_records_and_the_effects_played_in_place() -> None:
    """A decision of the generated turns calls no records function and no effects
    function of its options: their bodies are written into the turns."""
    game = rulekit.load_game(ROOT / "games" / "domino7.yaml")
    turns = next(src for src in game.generated if "def turns(st, cx, start):" in src)
    assert "out3.append((label, " in turns and ".records" not in turns
    played = re.findall(r"if (make\d+) is k\d+:\n +st\._log\.append", turns)
    # the turn's decision (the opening, a lay at an end) and the decision after a draw
    # (the drawn tile laid at an end)
    assert sorted(played.count(make) for make in set(played)) == [1, 2]
    assert "._lay(" in turns
    # the options are told apart by the tile's name and the end, their labels' parts
    assert re.search(r"label = \(\(v\d+\)\.name, v\d+, \)", turns)
    assert not re.search(r"label = \(k\d+\(v\d+\) \+", turns)


EXAMPLES = sorted(p for p in (ROOT / "games" / "examples").glob("*.yaml")
                  if ".tests." not in p.name)


@pytest.mark.parametrize("path", GAMES + EXAMPLES, ids=[p.stem for p in GAMES + EXAMPLES])
def test_attributes_read_inline_are_the_properties_they_stand_for(path: Path) -> None:
    """Generated code reads some properties of a building block's views (a line's end sum,
    a hand's size) as the source the block gives for them: at every move of a random game
    each such source gives what the property gives."""
    game = rulekit.load_game(path)
    state = game.new_game(players=PLAYERS.get(path.stem.split("-")[0], game.min_players),
                          seed=3)
    builtins = {"len": len, "list": list, "min": min, "sum": sum}
    compared = 0
    moves = random.Random(3)
    for _ in range(60):
        views = []
        for kind in game.components:
            t = kind.global_type()
            if t is not None and t.inline and state.gviews[kind.index] is not None:
                views.append((t, state.gviews[kind.index]))
            t = kind.player_type()
            if t is not None and t.inline and kind.per_player:
                views += [(t, p.view_of(kind)) for p in state.players]
        for t, view in views:
            for name, template in t.inline.items():
                source = template.format("(view)", **{k: k for k in builtins})
                assert eval(source, {**builtins, "view": view}) == getattr(view, name), name
                compared += 1
        if state.is_over:
            break
        if state.is_chance:
            state.resolve_chance()
        else:
            state.apply(moves.choice(state.legal_actions()))
    if any(kind.kind in ("line", "tile_set") for kind in game.components):
        assert compared > 100


def test_a_pasted_body_cannot_overwrite_the_turns_own_names() -> None:
    """The temporaries of a body written into the turns take names of the turns' own,
    unused so far; its parameters become the caller's names; attributes, constants and
    the compiler's locals keep theirs."""
    w = flowgen._Writer(False, None, {})
    seat, x = w.temp("seat"), w.temp("x")  # seat1, x2: what the body's own names shadow
    body = codegen.Inline(["    x2 = seat + k7", "    seat1 = v3.seat", "    base.x2 = x2"],
                          {"k7": 1})
    assert w.paste(1, body, {"seat": seat, "base": "b9"})
    pasted = w.lines
    assert pasted[0] == f"    x3 = {seat} + k7"
    assert pasted[1] == "    seat4 = v3.seat"
    assert pasted[2] == "    b9.x2 = x3"
    assert x not in " ".join(pasted).replace(".x2", "")
    assert w.all_consts == {"k7": 1}
    assert not w.paste(2, codegen.Inline(["    return x1"], {}), {})  # only a call returns


def test_a_decision_of_very_many_options_writes_some_in_place_and_calls_the_rest(
        tmp_path: Path) -> None:
    """Bodies are written into a block only while it stays of a fair size: past that, its
    options' records and effects are called, and the games are the same."""
    options = "".join(
        f"          - label: o{k}\n            do:\n"
        f"              - add: {{player.points: {k}}}\n"
        f"              - say: \"o{k} by {{player.seat}}\"\n"
        for k in range(600))
    text = ("name: Many\nplayers: {min: 2, max: 2}\nvars:\n  points: {per: player, init: 0}\n"
            "flow:\n  turn:\n    - choose:\n        options:\n" + options +
            "end:\n  when: {done: \"turn > 30\"}\nscore: player.points\n")
    path = tmp_path / "many.yaml"
    path.write_text(text, encoding="utf-8")
    fast, slow = load(path, True), load(path, False)
    turns = next(src for src in fast.generated if "def turns(" in src)
    written, called = turns.count("out3.append(("), turns.count(", out3, seen4)")
    assert written + called == 600 and written > 100 and called > 100
    for seed in range(3):
        same_playouts(fast, slow, 2, seed)


def test_rulekit_compile_shows_the_generated_code() -> None:
    result = CliRunner().invoke(main, ["compile", str(ROOT / "games" / "qwixx.yaml")])
    assert result.exit_code == 0, result.output
    assert result.output.count("def generate(st, base, seat, out, seen):") == 2
    assert re.search(r"# .*qwixx\.yaml:\d+:\d+", result.output)
    bad = CliRunner().invoke(main, ["compile", str(ROOT / "games" / "missing.yaml")])
    assert bad.exit_code == 1 and "no such file" in bad.output


@pytest.mark.parametrize("words", [PLAIN, HOSTILE], ids=["plain", "hostile"])
def test_generated_steps_play_the_same_games_as_the_closures(tmp_path: Path,
                                                             words: dict[str, str]) -> None:
    text = GAME
    for key, value in words.items():
        text = text.replace(key, value)
    path = tmp_path / "shape.yaml"
    path.write_text(text, encoding="utf-8")
    fast, slow = load(path, True), load(path, False)
    for seed in range(10):
        assert course(fast, 2, seed) == course(slow, 2, seed), seed
        same_playouts(fast, slow, 2, seed)


FAILING = """\
name: Failing
players: {min: 2, max: 2}
vars:
  points: {per: player, init: 0}
components:
  dice: {kind: dice, dice: {d1: 6}}
flow:
  turn:
    - roll: dice
    - choose:
        options:
          - label: go
            do:
              - for: "k in range(2)"
                do:
                  - add: {player.points: "12 // (dice.d1 - k - 3)"}
end:
  when: {done: "turn > 20"}
score: player.points
"""


def test_an_error_in_a_generated_step_names_the_step_as_the_closures_do(
        tmp_path: Path) -> None:
    path = tmp_path / "failing.yaml"
    path.write_text(FAILING, encoding="utf-8")
    errors = []
    for generated_code in (True, False):
        state = load(path, generated_code).new_game(seed=1)
        with pytest.raises(rulekit.RulekitError) as info:
            while not state.is_over:
                if state.is_chance:
                    state.resolve_chance()
                else:
                    state.apply("go")
        errors.append((str(info.value), state.log, state.pvars))
    assert errors[0] == errors[1]
    assert "failing.yaml:14:17: an action failed while the game ran: ZeroDivisionError" in \
        errors[0][0]


GUARDED = """\
name: Guarded
players: {min: 2, max: 2}
vars:
  points: {per: player, init: 0}
components:
  dice: {kind: dice, dice: {d1: 6, d2: 6}}
flow:
  turn:
    - roll: dice
    - choose:
        options:
          - for: "x in ([dice.d1, dice.d2] if dice.d1 > 3 else [])"
            label: "high {x}"
            do: [add: {player.points: x}]
          - for: "y in ([] if dice.d1 > 3 else [dice.d1 + dice.d2]), z in ([y] if y > 5 else [])"
            label: "sum {y} {z}"
            do: [add: {player.points: z}]
        none: []
end:
  when: {done: "turn > 12"}
score: player.points
"""


def test_options_over_a_list_or_nothing_are_those_of_the_closures(tmp_path: Path) -> None:
    """A `for` over `xs if c else []` (or `[] if c else xs`) is a test and a loop over xs in
    generated code: the same options, choices and scores as the closures give."""
    path = tmp_path / "guarded.yaml"
    path.write_text(GUARDED, encoding="utf-8")
    fast, slow = load(path, True), load(path, False)
    # the loops of random play, each behind its test
    assert sum(src.count("def records(") for src in fast.generated
               if "if (not " in src) == 1
    offered = set()
    for seed in range(12):
        played = course(fast, 2, seed)
        assert played == course(slow, 2, seed), seed
        offered |= {label.split()[0] for _seat, labels, _c in played[0] for label in labels}
        same_playouts(fast, slow, 2, seed)
    assert offered == {"high", "sum"}  # both kinds of option were offered


SCANS = """\
name: Scans
players: {min: 2, max: 2}
vars:
  points: {per: player, init: 0}
components:
  dice: {kind: dice, dice: {d1: 6, d2: 6, d3: 6}}
flow:
  turn:
    - roll: dice
    - choose:
        options:
          - for: "n in range(2, 13)"
            if: "any(a + b == n for a in [dice.d1, dice.d2] for b in [dice.d3] if a != b)"
            label: "sum {n}"
            do: [add: {player.points: n}]
          - for: "n in [2, 3]"
            if: "all(d % n == 0 for d in [dice.d1, dice.d2, dice.d3] if d > 1)"
            label: "all by {n}"
            do: [add: {player.points: 10}]
          # a scan stops at the element that decides: the next would divide by zero
          - label: "any stops"
            if: "any(6 // (d - 1) > 2 for d in [3, dice.d1, 1])"
            do: [add: {player.points: 1}]
          - label: "all stops"
            if: "not all(6 // (d - 1) > 2 for d in [2, 4, dice.d1 // 7 + 1])"
            do: [add: {player.points: 1}]
          # sums and counts of whole numbers are loops too; a sum of fractions is not
          - for: "k in [1, 2]"
            label: "total {sum(d * k for d in [dice.d1, dice.d2, dice.d3] if d > 2)}"
            if: "count(d for d in [dice.d1, dice.d2, dice.d3] if d * k == 3 * k) >= k"
            do: [add: {player.points: "sum(a * b for a in [dice.d1, k] for b in [dice.d3])"}]
          - label: "half {sum(d / 2 for d in [dice.d1, dice.d2])}"
            do: [add: {player.points: 1}]
end:
  when: {done: "turn > 12"}
score: "player.points + count(d for d in [dice.d1, dice.d2] for e in [6] if d == e)"
"""


def test_scans_of_a_generator_are_loops_that_stop_where_they_decide(
        tmp_path: Path) -> None:
    """any(), all(), count() and sums of whole numbers over a generator are loops in
    generated code: the same labels, effects, scores and games as the closures."""
    path = tmp_path / "scans.yaml"
    path.write_text(SCANS, encoding="utf-8")
    fast, slow = load(path, True), load(path, False)
    # four any/all, the label's sum, the condition's count, the effect's sum, the score's
    # count; the sum of halves stays the builtin's
    assert sum("def scan(st" in src for src in fast.generated) == 8
    assert not any("def scan(st" in src for src in slow.generated)
    for game in (fast, slow):
        state = game.new_game(players=2, seed=1)
        state.resolve_chance({"d1": 2, "d2": 3, "d3": 3})
        # 2 + 3 (3 + 3 has a == b); 2, 3 and 3 are not all even nor all divisible by 3;
        # two 3s: "total" for k = 1 and 2 (3 + 3, then 6 + 6); (2 + 3) / 2 in halves
        assert [a.label for a in state.legal_actions()] == [
            "sum 5", "any stops", "all stops", "total 6", "total 12", "half 2.5"]
        state.apply("total 12")  # 2 * 3 + 2 * 3
        assert state.scores()[0] == 12
        state.resolve_chance({"d1": 6, "d2": 6, "d3": 1})
        assert state.scores() == [12 + 2, 0 + 2]  # every player counts the two 6s
    for seed in range(10):
        assert course(fast, 2, seed) == course(slow, 2, seed), seed
        same_playouts(fast, slow, 2, seed)


KEYS = """\
name: Keys
players: {min: 2, max: 2}
vars:
  points: {per: player, init: 0}
components:
  dice: {kind: dice, dice: {d1: 3, d2: 3}}
flow:
  turn:
    - roll: dice
    - choose:
        pass: pass
        options:
          - for: "n in [dice.d1, dice.d2]"
            label: "{n}"
            do: [add: {player.points: n}]
          # one part as well, another shape: keys like the first's, labels never
          - for: "n in [dice.d1, 3]"
            label: "x{n}"
            do: [add: {player.points: 1}]
          # the first's shape: a label it gave already merges into the first's
          - for: "m in [dice.d2, 2]"
            label: "{m}"
            do: [add: {player.points: 10}]
          # a string with a space, then a number: read from the right, still one to one
          - for: "s in ['a b', 'a'], k in [dice.d1]"
            label: "{s} {k}"
            do: [add: {player.points: k}]
    - choose:
        pass: "no"
        options:
          # not one to one: 1 and 23, 12 and 3
          - for: "a in [1, 12, dice.d1], b in [23, 3, 2, dice.d2]"
            label: "{a}{b}"
            do: [add: {player.points: a}]
    - choose:
        options:
          - for: "t in [dice.d1 > 1, dice.d2 > 1, true]"
            label: "{t}"
            do: [add: {player.points: 2}]
    - choose:
        pass: x3       # a label the option can have: merged by labels
        options:
          - for: "n in [dice.d1]"
            label: "x{n}"
            do: [add: {player.points: 1}]
end:
  when: {done: "turn > 8"}
score: player.points
"""


def test_options_merged_by_their_labels_parts_are_those_merged_by_labels(
        tmp_path: Path) -> None:
    """Random play merges the options of a decision by the values their labels are made
    of, where the labels are one to one in them: the same options, merged into the same
    first ones, and the same games as labels give, in the API and in playouts."""
    path = tmp_path / "keys.yaml"
    path.write_text(KEYS, encoding="utf-8")
    fast, slow = load(path, True), load(path, False)
    keyed = [line.strip() for src in fast.generated if "def records(" in src
             for line in src.splitlines() if re.fullmatch(r"\s+label = \(.*, \)", line)]
    # the first decision's four options (the one-part shapes tagged apart) and the third's
    assert [re.sub(r"v\d+", "v", k) for k in keyed] == [
        "label = (0, v, )", "label = (1, v, )", "label = (0, v, )", "label = (v, v, )",
        "label = (v, )"]
    for game in (fast, slow):
        state = game.new_game(players=2, seed=1)
        state.resolve_chance({"d1": 2, "d2": 3})
        assert [a.label for a in state.legal_actions()] == [
            "2", "3", "x2", "x3", "a b 2", "a 2", "pass"]
        state.apply("3")  # the first option's 3, not the third's
        assert state.scores()[0] == 3
        # 1|23 and 12|3 merge
        assert [a.label for a in state.legal_actions()] == [
            "123", "13", "12", "1223", "122", "223", "23", "22", "no"]
        state.apply("123")
        assert [a.label for a in state.legal_actions()] == ["true"]
        state.apply("true")
        assert [a.label for a in state.legal_actions()] == ["x2", "x3"]
    for seed in range(12):
        assert course(fast, 2, seed) == course(slow, 2, seed), seed
        same_playouts(fast, slow, 2, seed)


FAILING_PROCEDURE = """\
name: Failing procedure
players: {min: 2, max: 2}
vars:
  n: {init: 3}
components:
  dice: {kind: dice, dice: {d1: 6}}
flow:
  procedures:
    turn_over:               # runs a procedure not read yet: a `run:` step of its own
      - run: tick
    tick:
      - add: {n: -1}
      - say: "n is {n}"
      - set: {n: "10 // n"}
  turn:
    - roll: dice
    - run: turn_over
end:
  when: {done: "turn > 20"}
score: 0
"""


def test_a_failing_step_of_a_procedure_written_into_the_turns_names_the_run_step(
        tmp_path: Path) -> None:
    """The steps of a procedure of effects are written into the generated turns; when one
    fails (10 // 0 in the fifth turn), the playout stops with the message of the machine's
    playout and of the API: the `run:` step located, the log as far as it got."""
    path = tmp_path / "failing.yaml"
    path.write_text(FAILING_PROCEDURE, encoding="utf-8")
    turns = next(src for src in rulekit.load_game(path).generated if "def turns(" in src)
    assert "st._log.append({" in turns and "(st, env)" not in turns  # no step is called
    seen = []
    for generated_code, playout in ((True, True), (False, True), (True, False)):
        state = load(path, generated_code).new_game(seed=1)
        with pytest.raises(rulekit.RulekitError) as info:
            if playout:
                state.playout(random.Random(1))
            else:
                while True:
                    state.resolve_chance()
        seen.append((str(info.value), state.log))
    assert seen[0] == seen[1]
    assert seen[0][0].startswith(f"{path}:10:9: a step failed while the game ran: "
                                 "ZeroDivisionError")
    said = [e["say"] for e in seen[0][1] if "say" in e]
    assert said == ["n is 2", "n is 4", "n is 1", "n is 9", "n is 0"]
    assert seen[2][0] == seen[0][0]


LINES = """\
name: Lines
players: {min: 2, max: 2}
vars:
  laid: {per: player, init: 0}
  moves: {init: 0}
components:
  hand: {kind: tile_set, per: player, double: 4, hand_size: 5}
  line: {kind: line}
flow:
  setup: [deal: hand]
  turn:
    - choose:
        pass: pass
        options:
          - for: "t in ([player.hand.tiles[0]] if line.empty else [])"
            label: "{t}"
            do: [lay_tile: {line: line, tile: t, from: player.hand}, add: {player.laid: 1}]
          # each tile twice: the lays merge by label, as a record of each is looked up
          - for: >-
              t in line.fitting(player.hand.tiles + player.hand.tiles),
              side in line.ends_for(t)
            label: "{t} {side}"
            do: [lay_tile: {line: line, tile: t, end: side, from: player.hand},
                 add: {player.laid: 1}]
    - add: {moves: 1}
end:
  when: {done: "moves >= 12"}
score: player.laid
"""


def test_records_promised_distinct_are_not_looked_up_and_others_are(tmp_path: Path) -> None:
    """A record is looked up among the others only where the option could give two of
    one label: a lay of a hand's tiles at the ends they fit is never looked up (Domino 7's
    turn), a lay of a list that holds each tile twice is, and merges as labels do."""
    game = rulekit.load_game(ROOT / "games" / "domino7.yaml")
    lays = [src.split("def records(")[1] for src in game.generated if "def records(" in src]
    assert lays and all("seen" not in body.split("\n", 1)[1] for body in lays)
    path = tmp_path / "lines.yaml"
    path.write_text(LINES, encoding="utf-8")
    fast, slow = load(path, True), load(path, False)
    records = [src.split("def records(")[1] for src in fast.generated if "def records(" in src]
    assert ["label not in seen" in body for body in records] == [False, True]
    offered = 0
    for seed in range(10):
        played = course(fast, 2, seed)
        assert played == course(slow, 2, seed), seed
        same_playouts(fast, slow, 2, seed)
        for _seat, labels, _choice in played[0]:
            assert len(labels) == len(set(labels))
            offered += sum(" " in label for label in labels)
    assert offered > 20  # lays at an end were offered, each once


WORK = """\
name: Work
players: {min: 2, max: 2}
params:
  options: {type: int, default: 3, min: 1, max: 100000}
  effects: {type: int, default: 3, min: 1, max: 100000}
  trigger: {type: int, default: 3, min: 1, max: 100000}
  scan: {type: int, default: 3, min: 1, max: 100000}
vars:
  points: {per: player, init: 0}
  seen: {per: player, init: 0}
components:
  dice: {kind: dice, dice: {d1: 6}}
flow:
  turn:
    - roll: dice
    - choose:
        pass: pass
        options:
          - for: "a in range(params.options), b in range(params.options)"
            if: "a == b and a < 2 and not any(c + e < 0 for c in range(params.scan)
              for e in range(params.scan))"
            label: "take {a}"
            do:
              - for: "c in range(params.effects), d in range(params.effects)"
                do:
                  - if: "c == d and c < 1"
                    then: [add: {player.points: 1}]
triggers:
  - for: "p in players, q in range(params.trigger), r in range(params.trigger)"
    when: "p.points > p.seen + q * r * 0"
    do: [add: {p.seen: 1}]
end:
  when: {done: "turn > 6"}
score: player.points
"""


@pytest.mark.parametrize("part", ["options", "effects", "trigger", "scan"])
def test_a_loop_that_runs_out_of_work_stops_alike_on_both_paths(tmp_path: Path,
                                                                part: str) -> None:
    """The loops of generated code charge the work meter as the closures do, written out
    rather than called: loops of four million rounds in an option's `for`, in its effects,
    in a trigger or in an any() stops the game at the same move with the same message,
    through the API and in a playout (the trigger's as the first turn begins, in the
    setup: the checks run then)."""
    path = tmp_path / "work.yaml"
    path.write_text(WORK.replace(f"  {part}: {{type: int, default: 3",
                                 f"  {part}: {{type: int, default: 2000"), encoding="utf-8")
    fast, slow = load(path, True), load(path, False)
    seen = []
    for game in (fast, slow):
        for playout in (False, True):
            state = None
            with pytest.raises(rulekit.RulekitError) as info:
                state = game.new_game(players=2, seed=4)
                if playout:
                    state.playout(random.Random(2))
                else:
                    while not state.is_over:
                        if state.is_chance:
                            state.resolve_chance()
                        else:
                            state.apply(state.legal_actions()[0])
            seen.append((str(info.value), state and len(state.log)))
    assert seen[0] == seen[2] and seen[1] == seen[3], seen
    # each round of an effect's loop is a step too: the step budget ends that loop first
    assert {"effects": "did not end within 200000 steps",
            "trigger": "more work than the setup may take"}.get(
        part, "more work than one") in seen[0][0]


# -- labels made of numbers: options merged by their numbers, labels written when read ---

NUMBERS = """\
name: Numbers
players: {min: 2, max: 2}
vars:
  points: {per: player, init: 0}
components:
  dice: {kind: dice, dice: {d1: 6, d2: 6}}
flow:
  turn:
    - roll: dice
    - choose:
        pass: "@PASS@"
        options:
          - for: "xs in @LISTS@"
            label: "@PREFIX@{join('@SEP@', xs)}"
            do:
              - add: {player.points: "sum(xs)"}
end:
  when: {done: "turn > 6"}
score: player.points
"""

DICE_LISTS = ("[[dice.d1], [dice.d1, dice.d2], [dice.d2, dice.d1], [dice.d1], [],"
              " [dice.d1 - dice.d2]]")


def numbers_game(tmp_path: Path, generated_code: bool, **words: str) -> rulekit.Game:
    text = NUMBERS
    defaults = {"PASS": "pass", "LISTS": DICE_LISTS, "PREFIX": "", "SEP": " + "}
    for key, value in {**defaults, **words}.items():
        text = text.replace(f"@{key}@", value)
    path = tmp_path / f"numbers-{generated_code}.yaml"
    path.write_text(text, encoding="utf-8")
    return load(path, generated_code)


def first_labels(game: rulekit.Game) -> list[str]:
    state = game.new_game(seed=5)
    state.resolve_chance({"d1": 3, "d2": 5})
    return [a.label for a in state.legal_actions()]


@pytest.mark.parametrize("words", [
    {},
    {"PREFIX": "sums ", "SEP": ", "},
    {"PASS": "3"},        # the pass label is a label the numbers can give: merged by labels
    {"PASS": "3 + 5"},
    {"SEP": ""},          # "12" may be 1 and 2 or 12: merged by labels
    {"SEP": "-"},         # "1-2" may be 1, 2 or 1, -2
    {"LISTS": "[[10 ** 20, 1], [10 ** 20, 1], [3]]"},   # long numbers: labels written at once
    {"LISTS": "dice.group_sums(1, 12)"},                # a list without repeats
    {"LISTS": "dice.group_sums(1, 12)", "SEP": ""},     # ... whose labels may still merge
], ids=["plain", "prefix", "pass-3", "pass-sum", "no-separator", "minus", "long-numbers",
        "distinct", "distinct-no-separator"])
def test_options_merged_by_their_numbers_offer_the_labels_of_the_closures(
        tmp_path: Path, words: dict[str, str]) -> None:
    fast, slow = numbers_game(tmp_path, True, **words), numbers_game(tmp_path, False, **words)
    assert first_labels(fast) == first_labels(slow)
    for seed in range(10):
        assert course(fast, 2, seed) == course(slow, 2, seed), seed


def test_options_of_the_same_numbers_are_one_choice_and_the_pass_label_stays(
        tmp_path: Path) -> None:
    game = numbers_game(tmp_path, True)
    assert "label.__class__ is" in game.generated[0]  # the options are merged by numbers
    assert first_labels(game) == ["3", "3 + 5", "5 + 3", "", "-2", "pass"]
    assert first_labels(numbers_game(tmp_path, True, PASS="3")) == ["3", "3 + 5", "5 + 3", "",
                                                                     "-2"]
    # a label written when it is read is the label: played by its text, logged as it reads
    state = game.new_game(seed=5)
    state.resolve_chance({"d1": 3, "d2": 5})
    state.apply("5 + 3")
    assert state.log[-1] == {"seat": 0, "action": "5 + 3"}
    assert state.scores() == [8, 0]


def test_options_of_a_list_without_repeats_are_kept_without_comparing_labels(
        tmp_path: Path) -> None:
    """group_sums promises no two equal lists: its options need no set of labels seen, and
    random play keeps each list as it is, writing the label of the move played only."""
    game = numbers_game(tmp_path, True, LISTS="dice.group_sums(1, 12)")
    records = next(src for src in game.generated if "group_sums" in src).split(
        "def records")[1].split("def make")[0]
    assert "seen" not in records.split(":", 1)[1]
    assert first_labels(game) == ["", "3", "5", "8", "3 + 5", "pass"]
    merged = numbers_game(tmp_path, True, LISTS="dice.group_sums(1, 12)", SEP="")
    assert "seen.add" in merged.generated[0]  # "35" is 3 and 5 or 35: merged by labels
    state = game.new_game(seed=5)
    state.resolve_chance({"d1": 3, "d2": 5})
    state.playout(random.Random(3), 1)
    assert state.log[-1]["action"] in first_labels(game)


def test_group_sums_keeps_its_promise_at_the_most_dice_and_sides(tmp_path: Path) -> None:
    """What generated loops rely on (Method.distinct, Method.numbers) holds at the extremes:
    eight dice of 1000 sides."""
    dice = ", ".join(f"d{i}: 1000" for i in range(1, 9))
    path = tmp_path / "big.yaml"
    path.write_text(NUMBERS.replace("{d1: 6, d2: 6}", "{" + dice + "}")
                    .replace("@LISTS@", "dice.group_sums(1, 10000)").replace("@PASS@", "pass")
                    .replace("@PREFIX@", "").replace("@SEP@", " + "), encoding="utf-8")
    game = rulekit.load_game(path)
    method = game.components[0].type.methods["group_sums"]
    most, digits = method.numbers
    largest = 0
    for faces in ([1000] * 8, [1, 2, 3, 4, 5, 6, 7, 8], [999, 1, 1000, 1, 1000, 2, 500, 500]):
        state = game.new_game(seed=1)
        state.resolve_chance({f"d{i}": f for i, f in enumerate(faces, 1)})
        sums = state.gviews[0].group_sums(1, 10000)
        assert len({tuple(x) for x in sums}) == len(sums)  # distinct
        assert max(len(x) for x in sums) == most == 8
        assert all(0 < v < 10 ** digits for x in sums for v in x)
        assert [a.label for a in state.legal_actions()][-1] == "pass"
        largest = max([largest] + [v for x in sums for v in x])
    assert largest == 8000 and digits == 4  # the promise is as tight as it can be


def test_hostile_labels_made_of_numbers_do_not_change_the_shape(tmp_path: Path) -> None:
    plain = numbers_game(tmp_path, True, PREFIX="sums ").generated
    hostile = numbers_game(tmp_path, True, PASS="x\\\"); import os #",
                           PREFIX="x\\\" + __import__(\\\"os\\\").system(\\\"id\\\") + \\\"",
                           SEP=") + __import__(os) + (").generated
    assert len(plain) == len(hostile) and "label.__class__ is" in hostile[0]
    for a, b in zip(plain, hostile):
        assert shape(a) == shape(b)
        assert "import" not in b


def test_a_playout_draws_from_the_randrange_of_the_rng_it_is_given() -> None:
    """An RNG with a randrange of its own (a scripted one) decides the playout's moves."""

    class Last(random.Random):
        def randrange(self, n: int) -> int:  # type: ignore[override]
            return n - 1

    game = rulekit.load_game(ROOT / "games" / "qwixx.yaml")
    fast, slow = game.new_game(players=3, seed=2), game.new_game(players=3, seed=2)
    fast.playout(Last(0), decisions=6)
    made = 0
    while made < 6:
        if slow.is_chance:
            slow.resolve_chance()
            continue
        slow.apply(slow.legal_actions()[-1])
        made += 1
    assert fast.log == slow.log
