"""Mutated game files: validate answers valid or invalid with a located message, quickly,
and a mutated game that still loads either plays or stops with a rulekit error."""

import random
import re
import shutil
import time
from pathlib import Path

import pytest

import rulekit

ROOT = Path(__file__).resolve().parent.parent
BASES = sorted(p for p in (ROOT / "games").glob("*.yaml"))
MUTANTS_PER_FILE = 40
WORDS = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
NUMBERS = re.compile(r"\b\d+\b")


def mutate(text: str, rng: random.Random) -> str:
    lines = text.splitlines()
    how = rng.randrange(5)
    if how == 0 and len(lines) > 1:                       # a deleted line
        del lines[rng.randrange(len(lines))]
        return "\n".join(lines) + "\n"
    if how == 1:                                          # a misspelt name
        words = list(WORDS.finditer(text))
        m = rng.choice(words)
        w = m.group()
        i = rng.randrange(len(w))
        bad = w[:i] + w[i + 1:] if rng.random() < 0.5 else w[:i] + "x" + w[i:]
        return text[:m.start()] + bad + text[m.end():]
    if how == 2:                                          # a number turned into a word
        nums = list(NUMBERS.finditer(text))
        if nums:
            m = rng.choice(nums)
            return text[:m.start()] + rng.choice(["five", "many", "", "-1", "1e9"]) + \
                text[m.end():]
    if how == 3:                                          # a broken expression
        quoted = [m for m in re.finditer(r'"[^"\n]+"', text)]
        if quoted:
            m = rng.choice(quoted)
            inner = m.group()[1:-1]
            k = rng.randrange(len(inner) + 1)
            junk = rng.choice(["(", ")", " + ", " and ", "[", ".", " if ", "**", ","])
            return text[:m.start() + 1] + inner[:k] + junk + inner[k:] + text[m.end() - 1:]
    # a line indented wrongly
    i = rng.randrange(len(lines))
    lines[i] = (" " * rng.choice([1, 3, 7])) + lines[i]
    return "\n".join(lines) + "\n"


def play_briefly(game, seed):
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


@pytest.mark.parametrize("base", BASES, ids=lambda p: p.name)
def test_mutated_files_get_a_located_answer(base, tmp_path):
    text = base.read_text()
    rng = random.Random(base.name)
    for k in range(MUTANTS_PER_FILE):
        mutant = mutate(text, rng)
        path = tmp_path / f"m{k}.yaml"
        path.write_text(mutant)
        start = time.perf_counter()
        try:
            game = rulekit.load_game(path)
        except rulekit.GameFileError as exc:
            assert exc.diagnostics, mutant
            for d in exc.diagnostics:
                assert d.file == str(path) and d.line >= 1 and d.col >= 1, d.format()
                assert d.message
        else:
            try:
                play_briefly(game, k)
            except rulekit.RulekitError:
                pass
        assert time.perf_counter() - start < 5, f"mutant {k} took too long"


def test_mutated_variants_point_into_the_file_at_fault(tmp_path):
    for variant in sorted((ROOT / "games" / "variants").glob("*.yaml")):
        shutil.copytree(ROOT / "games", tmp_path / variant.stem, dirs_exist_ok=True)
        target = tmp_path / variant.stem / "variants" / variant.name
        rng = random.Random(variant.name)
        for _ in range(10):
            target.write_text(mutate(variant.read_text(), rng))
            try:
                rulekit.load_game(target)
            except rulekit.GameFileError as exc:
                assert all(d.line >= 1 for d in exc.diagnostics)
