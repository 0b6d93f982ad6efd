"""Mutated game files: `rulekit validate` answers valid (0) or invalid (1) with located
messages, quickly, never with a traceback; a mutant that still loads either plays or stops
with a rulekit error.

The mutants are the mistakes people make: a deleted or doubled line, a misspelt name, a
number turned into a word, a broken expression, a wrong indentation, a lost bracket or
quote, a value of the wrong shape, a key swapped for another. Every file is mutated from
its own seeded RNG, so a failure names a mutant that can be made again.
"""

import json
import random
import re
import shutil
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import rulekit
from rulekit.cli import main
from rulekit.text import printable

ROOT = Path(__file__).resolve().parent.parent
#: the shipped games, and their variants (files that extend a game next to them)
SHIPPED = sorted(p for p in (ROOT / "games").glob("*.yaml") if ".tests." not in p.name)
VARIANTS = [p for p in SHIPPED if re.search(r"^extends:", p.read_text(), re.M)]
BASES = [p for p in SHIPPED if p not in VARIANTS]
#: mutants per shipped game file, and how many of them go through the command line
MUTANTS_PER_FILE = 600
CLI_EVERY = 4
#: the most one mutant may take, loading and playing included
SECONDS_PER_MUTANT = 5
WORDS = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
NUMBERS = re.compile(r"\b\d+\b")
KEYWORDS = ["roll", "choose", "together", "if", "then", "else", "for", "do", "run", "let",
            "set", "add", "say", "options", "label", "pass", "none", "who", "kind", "per",
            "when", "params", "vars", "components", "flow", "turn", "setup", "procedures",
            "score", "score_bounds", "end", "min", "max", "default", "type", "extends"]
JUNK = ["(", ")", " + ", " and ", "[", ".", " if ", "**", ",", " not ", "]", "'", "{", "}",
        " in ", " // 0", " ** 99", " == ", "@"]
#: suffixes that keep an expression readable but make it fail, or give an absurd value
POISON = [" // 0", " // (player_count - player_count)", " * 0", " - 1000", " * 100000",
          " ** 99", " + 0.5", " > 0", " or 1", " + ''"]
SHAPES = ["[1, 2]", "{a: 1}", "null", "true", "''", "-1", "0", "99999", "[]", "{}", "x: y",
          "*nowhere", "&anchor", "!!python/object:os.system", "|", ">"]


def mutate(text: str, rng: random.Random) -> str:
    """One random mistake of the kinds people make."""
    lines = text.splitlines()
    how = rng.randrange(13)
    if how == 0 and len(lines) > 1:                       # a deleted line
        del lines[rng.randrange(len(lines))]
        return "\n".join(lines) + "\n"
    if how == 1:                                          # a misspelt name
        m = rng.choice(list(WORDS.finditer(text)))
        w = m.group()
        i = rng.randrange(len(w))
        bad = w[:i] + w[i + 1:] if rng.random() < 0.5 else w[:i] + "x" + w[i:]
        return text[:m.start()] + bad + text[m.end():]
    if how == 2:                                          # a number turned into a word
        nums = list(NUMBERS.finditer(text))
        if nums:
            m = rng.choice(nums)
            return text[:m.start()] + rng.choice(["five", "many", "", "-1", "1e9", "0", "1e999",
                                                  "9" * 40, ".nan"]) + text[m.end():]
    if how == 3:                                          # a broken expression
        quoted = list(re.finditer(r'"[^"\n]+"', text))
        if quoted:
            m = rng.choice(quoted)
            inner = m.group()[1:-1]
            k = rng.randrange(len(inner) + 1)
            return text[:m.start() + 1] + inner[:k] + rng.choice(JUNK) + inner[k:] + \
                text[m.end() - 1:]
    if how == 4 and len(lines) > 1:                       # a doubled line
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i])
        return "\n".join(lines) + "\n"
    if how == 5 and len(lines) > 2:                       # two lines swapped
        i = rng.randrange(len(lines) - 1)
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
        return "\n".join(lines) + "\n"
    if how == 6:                                          # a lost bracket, quote or colon
        marks = [m.start() for m in re.finditer(r"[\[\]{}()\"':,|]", text)]
        if marks:
            i = rng.choice(marks)
            return text[:i] + text[i + 1:]
    if how == 7:                                          # a value of the wrong shape
        values = list(re.finditer(r"(?<=: )[^\s#][^\n#]*", text))
        if values:
            m = rng.choice(values)
            return text[:m.start()] + rng.choice(SHAPES) + text[m.end():]
    if how == 8:                                          # a key swapped for another
        keys = list(re.finditer(r"(?m)^(\s*-?\s*)([A-Za-z_]+)(?=:)", text))
        if keys:
            m = rng.choice(keys)
            return text[:m.start(2)] + rng.choice(KEYWORDS) + text[m.end(2):]
    if how == 9:                                          # the file cut short
        return text[:rng.randrange(len(text))]
    if how == 11:                                         # an expression that fails
        exprs = list(re.finditer(r'"[^"\n{}]+"|(?<=: )params\.[a-z_]+', text))
        if exprs:
            m = rng.choice(exprs)
            body = m.group().strip('"')
            return text[:m.start()] + f'"({body}){rng.choice(POISON)}"' + text[m.end():]
    if how == 10:                                         # an expression replaced
        quoted = list(re.finditer(r'"[^"\n]+"', text))
        if quoted:
            m = rng.choice(quoted)
            other = rng.choice(quoted).group()
            return text[:m.start()] + other + text[m.end():]
    i = rng.randrange(len(lines))                         # a line indented wrongly
    lines[i] = (" " * rng.choice([1, 2, 3, 7])) + lines[i] if rng.random() < 0.7 \
        else lines[i].lstrip()
    return "\n".join(lines) + "\n"


def mutants(text: str, rng: random.Random) -> str:
    """Usually one mistake; sometimes two or three at once."""
    text = mutate(text, rng)
    while rng.random() < 0.3:
        text = mutate(text, rng)
    return text


def play_briefly(game: rulekit.Game, seed: int) -> None:
    state = game.new_game(players=game.min_players, seed=seed)
    rng = random.Random(seed)
    for _ in range(2000):
        if state.is_over:
            break
        if state.is_chance:
            state.resolve_chance()
        else:
            state.apply(rng.choice(state.legal_actions()))
    state.scores()
    state.view(0)
    state.render(0)


def check_diagnostics(diagnostics: list, path: Path) -> None:
    assert diagnostics
    for d in diagnostics:
        assert d.file == str(path) and d.line >= 1 and d.col >= 1, d.format()
        assert d.message and d.hint, d.format()
        assert "internal error" not in d.message, d.format()


def check_through_the_cli(path: Path) -> None:
    """`rulekit validate` exits 0 or 1, every diagnostic located, text and JSON agreeing."""
    result = CliRunner().invoke(main, ["validate", "--format", "json", str(path)])
    assert result.exit_code in (0, 1), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    (entry,) = json.loads(result.stdout)
    assert entry["valid"] == (result.exit_code == 0)
    for d in entry["diagnostics"]:
        assert d["file"] == str(path) and d["line"] >= 1 and d["col"] >= 1, d
        assert d["message"] and d["hint"] and "internal error" not in d["message"], d
    text = CliRunner().invoke(main, ["validate", str(path)])
    assert text.exit_code == result.exit_code and "Traceback" not in text.output
    for d in entry["diagnostics"]:  # the text shows a message's control characters escaped
        assert (f"{path}:{d['line']}:{d['col']}: {d['severity']}: {printable(d['message'])}"
                in text.output)


@pytest.mark.parametrize("base", BASES, ids=lambda p: p.name)
def test_mutated_files_get_a_located_answer(base: Path, tmp_path: Path) -> None:
    text = base.read_text()
    rng = random.Random(base.name)
    for k in range(MUTANTS_PER_FILE):
        mutant = mutants(text, rng)
        path = tmp_path / f"m{k}.yaml"
        path.write_text(mutant)
        start = time.perf_counter()
        if k % CLI_EVERY == 0:
            check_through_the_cli(path)
        try:
            game = rulekit.load_game(path)
        except rulekit.GameFileError as exc:
            check_diagnostics(exc.diagnostics, path)
        else:
            try:
                play_briefly(game, k)
            except rulekit.RulekitError:
                pass
        assert time.perf_counter() - start < SECONDS_PER_MUTANT, f"mutant {k} took too long"


def test_mutated_variants_point_into_the_file_at_fault(tmp_path: Path) -> None:
    for variant in VARIANTS:
        shutil.copytree(ROOT / "games", tmp_path / variant.stem, dirs_exist_ok=True)
        target = tmp_path / variant.stem / variant.name
        rng = random.Random(variant.name)
        for _ in range(60):
            target.write_text(mutants(variant.read_text(), rng))
            try:
                rulekit.load_game(target)
            except rulekit.GameFileError as exc:
                for d in exc.diagnostics:
                    assert d.line >= 1 and d.col >= 1 and d.hint, d.format()
                    # a mistake in the variant never blames the untouched base
                    assert d.file == str(target) or "extends" not in d.message, d.format()


def test_mutants_are_reproducible() -> None:
    text = BASES[0].read_text()
    a = [mutants(text, random.Random(7)) for _ in range(3)]
    b = [mutants(text, random.Random(7)) for _ in range(3)]
    assert a == b and any(m != text for m in a)
