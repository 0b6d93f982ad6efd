"""Hostile files stop in bounded time and memory: every evaluation runs under budgets.

Each attack is a small game file that once hung rulekit for minutes or filled the memory.
It is run in a child process (the real `rulekit` command) with its address space capped at
one gigabyte; the attack must end within seconds with exit code 1 and a message located in
the file, never a traceback, a MemoryError or a RecursionError.
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import rulekit
from rulekit.engine import build
from rulekit.errors import GameFileError

ROOT = Path(__file__).resolve().parent.parent

BASE = """\
name: Budget
players: {min: 2, max: 2}
vars:
  s: {init: "ab"}
  f: {init: 1.5}
  x: {init: 1}
components:
  dice: {kind: dice, dice: {@DICE@}}
define:
  one: "1"
@DEFINES@
flow:
  turn:
    - roll: dice
@STEPS@
    - choose:
        pass: pass
        options:
          - for: "@FOR@"
            label: "@LABEL@"
end:
  when: {done: "turn > 30"}
score: "@SCORE@"
score_bounds: {min: -1000, max: "@BOUND@"}
"""

DEFAULTS = {"@DEFINES@": "", "@STEPS@": "", "@FOR@": "k in [1, 2]", "@LABEL@": "take {k}",
            "@SCORE@": "x", "@BOUND@": "1000", "@DICE@": "d1: 6"}

#: the most seconds an attack may take, starting Python included (a budget stops it in ~1 s)
SECONDS = 8
#: the address space the child process may use
MEMORY = 1 << 30

LIMITS = f"""
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({MEMORY}, {MEMORY}))
from rulekit.cli import main
sys.argv = ["rulekit"] + sys.argv[1:]
main()
"""


@dataclass
class Attack:
    id: str
    parts: dict[str, str]
    command: list[str]
    message: str  # a regular expression the output must match
    at: str | None = None  # text on the line the message must point at
    sets: list[str] = field(default_factory=list)


#: eight dice, whose groupings are 21,147 splits
EIGHT_DICE = ", ".join(f"d{i}: 6" for i in range(1, 9))
#: a list of 990 references to one list of 1,000 numbers of 254 digits: within the size a
#: list may have, but 250 million characters as text
WIDE_LIST = "[a for a in [[7 ** 300 for i in range(1000)]] for j in range(990)]"
WIDE = ('  a0: "[7 ** 300 for i in range(1000)]"\n'
        '  a1: "[a0 for i in range(990)]"')


#: a list of 1,000 references to a list of 1,000 references to one list of 1,000 numbers:
#: a few kilobytes, yet 10**9 numbers to compare
SHARED = ("[b for b in [[a for a in [range(1000)] for i in range(1000)]] "
          "for j in range(1000)]")


def doubling(prefix: str, first: str, levels: int) -> str:
    """Defines d1 .. dN where each is the one before it twice: 2**N work or length."""
    lines = [f'  {prefix}0: "{first}"']
    lines += [f'  {prefix}{i}: "{prefix}{i - 1} + {prefix}{i - 1}"' for i in range(1, levels)]
    return "\n".join(lines)


ATTACKS = [
    Attack("load-time-nested-comprehension",
           {"@BOUND@": "sum(a * b for a in range(100000) for b in range(100000))"},
           ["validate"], r"more work than .* may take", at="score_bounds"),
    Attack("folded-constant-comprehension",
           {"@DEFINES@": '  big: "len([range(a) for a in range(10000)])"'},
           ["validate"], r"this always fails: more work than", at="big:"),
    Attack("repetition-on-an-untyped-operand",
           {"@SCORE@": "len([0, ''][1] * 100000000)"},
           ["validate"], r"a list holds one type of element", at="score:"),
    Attack("string-repetition",
           {"@SCORE@": "len('ab' * 100000000)"},
           ["validate"], r"'\*' needs numbers", at="score:"),
    Attack("doubling-defines-of-text",
           {"@DEFINES@": doubling("t", "'ab'", 40), "@STEPS@": '    - say: "{t39}"'},
           ["play", "--auto"], r"a string of \d+ characters, more than the 10000 allowed",
           at="- say:"),
    Attack("let-chain-growing-a-string",
           {"@STEPS@": "    - let: {" + ", ".join(
               ["a0: \"'abcdefghij'\""] + [f'a{i}: "a{i - 1} + a{i - 1}"' for i in range(1, 30)]
           ) + "}"},
           ["play", "--auto"], r"a string of \d+ characters", at="- let:"),
    Attack("string-variable-doubled-each-turn",
           {"@STEPS@": '    - set: {s: "s + s"}'},
           ["simulate", "--games", "1"], r"a string of \d+ characters", at="- set:"),
    Attack("exploding-option-list",
           {"@FOR@": "a in range(100000), b in range(100000)", "@LABEL@": "{a} {b}"},
           ["play", "--auto"], r"more than 10000 options in one decision", at="- choose:"),
    Attack("option-generator-that-filters-everything",
           {"@FOR@": "a in range(100000), b in range(100000 if a >= 0 else 1)",
            "@LABEL@": "{a} {b}"},
           ["simulate", "--games", "1"], r"more (work|than 10000 options)", at="- choose:"),
    Attack("scan-of-a-long-list-in-a-loop",
           {"@STEPS@": '    - let: {xs: "range(100000)"}\n'
                       '    - set: {x: "count(i for i in range(100000) if i + 1 in xs)"}'},
           ["play", "--auto"], r"more work than one (move|chance step) may take",
           at="- set: {x"),
    Attack("long-joined-text",
           {"@STEPS@": "    - say: \"{join(',', [str(i) for i in range(100000)])}\""},
           ["play", "--auto"], r"a string of \d+ characters", at="- say:"),
    Attack("template-of-many-long-parts",
           {"@STEPS@": "    - let: {w: \"join('', ['x' for i in range(9000)])\"}\n"
                       "    - say: \"" + "{w}" * 20 + "\""},
           ["play", "--auto"], r"a text of \d+ characters", at="- say: \"{w}"),
    Attack("infinity-into-a-variable",
           {"@STEPS@": '    - set: {f: "f * 1e308 * 10"}'},
           ["simulate", "--games", "1"], r"variable 'f' would hold inf", at="- set:"),
    Attack("whole-number-squared-each-turn",
           {"@STEPS@": '    - set: {x: "x * x * 1000 + 2"}'},
           ["simulate", "--games", "1"], r"(grows? without end|too large a number)",
           at="- set:"),
    Attack("power-tower",
           {"@STEPS@": '    - set: {x: "(x + 9) ** 1000 ** 2"}'},
           ["simulate", "--games", "1"], r"too large a number", at="- set:"),
    Attack("huge-number-literal",
           {"@SCORE@": "1" * 1500},
           ["validate"], r"a number of 1500 digits: too large", at="score:"),
    Attack("defines-nested-thousands-deep",
           {"@DEFINES@": "\n".join(f'  e{i}: "{"e" + str(i - 1) if i else "turn"} + 1"'
                                   for i in range(3000)),
            "@STEPS@": '    - set: {x: "e2999"}'},
           ["simulate", "--games", "1"], r"nest too deeply", at="- set:"),
    Attack("a-track-of-a-hundred-million-fields",
           {"@DEFINES@": ""}, ["validate"], r"lengths must be from 1 to 200", at="board:",
           sets=["lengths=[100000000, 5]"]),
    Attack("equality-of-lists-of-shared-lists",
           {"@DEFINES@": f'  big: "{SHARED} == {SHARED}"'},
           ["validate"], r"a list would hold more than 1000000 elements", at="big:"),
    Attack("equality-of-lists-within-the-size-limit-in-a-loop",
           {"@STEPS@": '    - let: {a: "[range(700) for i in range(700)]", '
                       'b: "[range(700) for i in range(700)]"}\n'
                       '    - set: {x: "count(i for i in range(100000) if a == b)"}'},
           ["play", "--auto"], r"more work than one (move|chance step) may take",
           at="- set: {x"),
    Attack("in-a-constant-list-of-shared-lists",
           {"@STEPS@": '    - let: {y: "[range(1000) for j in range(999)]"}\n'
                       '    - set: {x: "count(i for i in range(100000) if y in '
                       '[[a for a in [range(1000)] for k in range(999)]])"}'},
           ["play", "--auto"], r"more work than one (move|chance step) may take",
           at="- set: {x"),
    Attack("long-string-in-in-a-loop",
           {"@STEPS@": "    - let: {t: \"join('', ['ab' for i in range(4990)])\", "
                       "n: \"join('', ['ab' for i in range(2400)]) + 'c'\"}\n"
                       '    - set: {x: "count(i for i in range(1000) for j in range(1000) '
                       'if n in t)"}'},
           ["play", "--auto"], r"more work than one (move|chance step) may take",
           at="- set: {x"),
    Attack("dice-groupings-in-a-loop",
           {"@DICE@": EIGHT_DICE,
            "@STEPS@": '    - set: {x: "count(i for i in range(100000) '
                       'if len(dice.groupings) > 0)"}'},
           ["play", "--auto"], r"more work than one (move|chance step) may take",
           at="- set: {x"),
    Attack("a-list-of-dice-groupings",
           {"@DICE@": EIGHT_DICE,
            "@STEPS@": '    - set: {x: "len([dice.groupings for i in range(400)])"}'},
           ["play", "--auto"], r"more work than one (move|chance step) may take|"
                               r"a list would have \d+ elements", at="- set: {x"),
    Attack("str-of-a-large-nested-list",
           {"@DEFINES@": WIDE, "@STEPS@": '    - set: {x: "len(str(a1))"}'},
           ["play", "--auto"], r"a string of more than 10000 characters", at="- set: {x"),
    Attack("template-of-a-large-nested-list",
           {"@DEFINES@": WIDE, "@STEPS@": '    - say: "{a1}"'},
           ["play", "--auto"], r"a string of more than 10000 characters", at="- say:"),
    Attack("join-of-a-large-nested-list",
           {"@DEFINES@": WIDE, "@STEPS@": "    - say: \"{join(',', a1)}\""},
           ["play", "--auto"], r"a string of more than 10000 characters", at="- say:"),
    Attack("str-of-a-large-nested-list-at-load",
           {"@BOUND@": f"len(str({WIDE_LIST}))"},
           ["validate"], r"a string of more than 10000 characters", at="score_bounds"),
]


def game_text(parts: dict[str, str]) -> str:
    text = BASE
    for key, default in DEFAULTS.items():
        text = text.replace(key, parts.get(key, default))
    return text


def with_track(text: str) -> str:
    """The game with a param-sized track, for the component-size attack."""
    text = text.replace("vars:\n", "params:\n  lengths: {type: list, items: int, "
                                    "default: [5, 5]}\nvars:\n")
    return text.replace("components:\n", "components:\n  board: {kind: track, lanes: [1, 2], "
                                         "lengths: params.lengths}\n")


def run_limited(args: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess, float]:
    start = time.monotonic()
    result = subprocess.run([sys.executable, "-c", LIMITS, *args], cwd=cwd, capture_output=True,
                            text=True, timeout=60, stdin=subprocess.DEVNULL)
    return result, time.monotonic() - start


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.id for a in ATTACKS])
def test_attacks_stop_in_bounded_time_and_memory(tmp_path: Path, attack: Attack) -> None:
    text = game_text(attack.parts)
    if attack.sets:
        text = with_track(text)
    path = tmp_path / "game.yaml"
    path.write_text(text, encoding="utf-8")
    args = [attack.command[0], str(path), *attack.command[1:]]
    for s in attack.sets:
        args += ["--set", s]
    result, seconds = run_limited(args, tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert seconds < SECONDS, f"took {seconds:.1f} s"
    for bad in ("Traceback", "MemoryError", "RecursionError", "internal error"):
        assert bad not in output, output
    assert re.search(attack.message, output), output
    if attack.at is not None:
        line = next(i for i, t in enumerate(text.splitlines(), 1) if attack.at in t)
        assert re.search(rf"game\.yaml:{line}:\d+", output), (line, output)


def test_the_harmless_game_runs(tmp_path: Path) -> None:
    path = tmp_path / "game.yaml"
    path.write_text(game_text({}), encoding="utf-8")
    result, _seconds = run_limited(["simulate", str(path), "--games", "3"], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    track = tmp_path / "track.yaml"
    track.write_text(with_track(game_text({})), encoding="utf-8")
    result, _seconds = run_limited(["validate", str(track), "--set", "lengths=[200, 1]"], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_file_of_too_many_expressions_stops_at_the_load_deadline(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build, "LOAD_SECONDS", 0.2)
    defines = "\n".join(f'  d{i}: "one + {i} * turn"' for i in range(5000))
    path = tmp_path / "game.yaml"
    path.write_text(game_text({"@DEFINES@": defines}), encoding="utf-8")
    start = time.monotonic()
    with pytest.raises(GameFileError, match=r"loading took more than 0.2 s") as info:
        rulekit.load_game(path)
    assert time.monotonic() - start < 10  # reading 5,000 lines, then 0.2 s of compiling
    (diag,) = info.value.diagnostics
    assert diag.path.startswith("define.d")


def test_a_whole_game_of_expensive_moves_runs_out_of_work(tmp_path: Path) -> None:
    # every move costs less than a move may, but the game as a whole runs out
    step = '    - set: {x: "count(i for i in range(1000) for j in range(1000) if i < 0)"}'
    path = tmp_path / "game.yaml"
    path.write_text(game_text({"@STEPS@": step}).replace("turn > 30", "turn > 1000"),
                    encoding="utf-8")
    game = rulekit.load_game(path)
    state = game.new_game(players=2, seed=1)
    with pytest.raises(rulekit.FlowError, match="the game has used nearly all its work"):
        for _ in range(1000):
            if state.is_chance:
                state.resolve_chance()
            else:
                state.apply(state.legal_actions()[0])


def test_defines_that_use_defines_twice_are_computed_once_per_change(tmp_path: Path) -> None:
    """60 defines, each reading the one before twice, would be 2**60 evaluations: each is
    computed once per change of the state, so the game plays to its end at once."""
    text = game_text({"@DEFINES@": doubling("n", "turn", 60),
                      "@STEPS@": '    - set: {x: "n59 % 7"}'})
    path = tmp_path / "game.yaml"
    path.write_text(text, encoding="utf-8")
    result, seconds = run_limited(["simulate", str(path), "--games", "3"], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert seconds < SECONDS, f"took {seconds:.1f} s"
    assert "3 games" in result.stdout, result.stdout


def test_one_expensive_expression_stops_at_the_load_deadline(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The deadline holds inside one expression: its work is within the budget of a value
    worked out at load, but it takes longer than the whole load may."""
    monkeypatch.setattr(build, "LOAD_SECONDS", 0.2)
    # 901,000 units of work, within a load-time value's; seconds of big-number division
    bound = ("sum(7 ** 300 // (a + b + 1) // (a + 2) // (b + 3) // (a + 4) // (b + 5) "
             "for a in range(1000) for b in range(900))")
    path = tmp_path / "game.yaml"
    path.write_text(game_text({"@BOUND@": bound}), encoding="utf-8")
    # in a thread of its own, whose meter no earlier test has used
    found: list[BaseException] = []

    def load() -> None:
        try:
            rulekit.load_game(path)
        except BaseException as exc:  # noqa: BLE001 - handed to the test's thread
            found.append(exc)

    start = time.monotonic()
    worker = threading.Thread(target=load)
    worker.start()
    worker.join(30)
    assert time.monotonic() - start < 1.0
    assert len(found) == 1 and isinstance(found[0], GameFileError), found
    assert re.search(r"loading took more than 0.2 s, in this ex", str(found[0])), found[0]
    (diag,) = found[0].diagnostics
    assert diag.path.startswith("score_bounds")
