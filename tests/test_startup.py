"""What a user waits for before and around a study: the command's start (what it imports)
and the work of each game outside its playout (seeds, bots), which must not change a
single game."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from rulekit.cli import main
from rulekit.studies import play
from rulekit.studies.play import derive_seed, seeds_of

ROOT = Path(__file__).resolve().parents[1]
QWIXX = str(ROOT / "games" / "qwixx.yaml")
LEVELX = str(ROOT / "games" / "levelx.yaml")

#: optional extras and parts no study needs unless asked (a plot, Dask, the browser app,
#: the terminal's screens)
HEAVY = ("numpy", "matplotlib", "dask", "distributed", "starlette", "uvicorn",
         "rulekit.terminal", "rulekit.web")


def _imported_after(code: str) -> list[str]:
    probe = (f"import sys\n{code}\n"
             f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1].replace("'", '"'))


def test_importing_the_command_line_imports_nothing_heavy() -> None:
    assert _imported_after("import rulekit.cli") == []


def test_a_study_of_a_valid_file_imports_nothing_heavy() -> None:
    code = ("from click.testing import CliRunner\nfrom rulekit.cli import main\n"
            f"r = CliRunner().invoke(main, ['simulate', {QWIXX!r}, '--games', '3'])\n"
            "assert r.exit_code == 0, r.output\n"
            f"r = CliRunner().invoke(main, ['simulate', {QWIXX!r}, '--games', '3', '--json'])\n"
            "assert r.exit_code == 0, r.output")
    assert _imported_after(code) == []


def test_an_invalid_file_is_still_explained(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(Path(QWIXX).read_text().replace("players: {min: 2, max: 5}",
                                                   "players: {min: two, max: 5}"))
    assert "min: two" in bad.read_text()
    result = CliRunner().invoke(main, ["simulate", str(bad), "--games", "1"])
    assert result.exit_code == 1
    assert "expected integer, got string 'two'" in result.output


def test_seeds_of_is_derive_seed() -> None:
    for seed in (0, 1, 3, -7, 2 ** 70):
        for kind in ("game", "bots"):
            derive = seeds_of(seed, kind)
            assert [derive(i) for i in range(50)] == [derive_seed(seed, kind, i)
                                                       for i in range(50)]
    # the same text as derive_seed makes: True is not 1, "1" is 1
    assert seeds_of(True, "game")(0) == derive_seed(True, "game", 0) != derive_seed(1, "game", 0)
    assert seeds_of(1, "game")(0) == derive_seed(1, "game", 0)
    assert seeds_of(5, "ladder", "a", "b")("3") == derive_seed(5, "ladder", "a", "b", 3)


def _report(*args: str) -> dict:
    result = CliRunner().invoke(main, ["simulate", *args, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    report.pop("seconds")
    return report


def test_random_bots_in_two_processes_give_the_report_of_one() -> None:
    """Random bots only: the playouts' fast path, with the bots made once per process."""
    args = (LEVELX, "--games", "60", "--seed", "4")
    assert _report(*args, "--jobs", "1") == _report(*args, "--jobs", "2")


def test_bots_made_once_give_the_games_of_bots_made_per_game(tmp_path: Path) -> None:
    """Each game's record is the same whether a study reuses its bots or makes them anew."""
    args = (QWIXX, "--players", "3", "--games", "12", "--seed", "2", "--bots",
            "random,greedy", "--jobs", "1")
    reused = tmp_path / "reused.jsonl"
    first = _report(*args, "--games-out", str(reused))
    play._SEATED.clear()
    real = play._agents
    try:
        def fresh(names: list[str]) -> tuple:
            play._SEATED.clear()
            return real(names)

        play._agents = fresh
        fresh_out = tmp_path / "fresh.jsonl"
        assert _report(*args, "--games-out", str(fresh_out)) == first
    finally:
        play._agents = real
    assert reused.read_text() == fresh_out.read_text()
    seeds = [json.loads(line)["seed"] for line in reused.read_text().splitlines()]
    assert seeds == [derive_seed(2, "game", i) for i in range(12)]
