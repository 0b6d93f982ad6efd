"""Bots that learn: `rulekit train`, its model files and the bots that play them, as a
user meets them (scikit-learn trains for real: the extra rulekit[train])."""

from __future__ import annotations

import io
import json
import os
import random
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from click.testing import CliRunner, Result

import rulekit
from rulekit.bots import check_spec, make, split_model
from rulekit.bots.net import NetBot
from rulekit.bots.netsearch import NetMctsBot
from rulekit.cli import main
from rulekit.errors import RulekitError
from rulekit.learn import command
from rulekit.learn.model import load
from rulekit.learn.train import Checkpoint, Settings, Trainer, lambda_returns

pytest.importorskip("sklearn")

ROOT = Path(__file__).resolve().parent.parent
LITTLE_PIG = str(ROOT / "games" / "examples" / "little-pig.yaml")
PIG = str(ROOT / "games" / "examples" / "pig.yaml")
#: a short run: 24 games of self-play, an evaluation of 2 games every 12
SHORT = ["--games", "24", "--checkpoint", "12", "--eval-games", "2"]


def run(*args: str) -> Result:
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output
    if result.exception is not None:
        assert isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A model of Little Pig (2 players) trained on 320 games: a few seconds."""
    out = tmp_path_factory.mktemp("models") / "little-pig.npz"
    result = run("train", LITTLE_PIG, "--games", "320", "--checkpoint", "80",
                 "--eval-games", "10", "--seed", "3", "--out", str(out))
    assert result.exit_code == 0, result.output
    return out


def test_train_writes_a_model_and_reports_its_checkpoints(trained: Path) -> None:
    model = load(trained)
    header = model.header
    assert header["game"] == "Little Pig" and header["players"] == 2
    assert header["params"] == {"goal": 30}
    assert header["inputs"] == model.inputs
    assert header["training"]["seed"] == 3 and header["training"]["games_played"] == 320
    result = run("train", LITTLE_PIG, *SHORT, "--out", str(trained.parent / "short.npz"))
    assert result.exit_code == 0, result.output
    assert "checkpoint  games  vs greedy  vs previous" in result.output
    assert "<- kept" in result.output and "net:" in result.output


def test_the_same_seed_and_settings_train_the_same_model(tmp_path: Path) -> None:
    paths = [tmp_path / f"{name}.npz" for name in ("a", "b", "c")]
    for path, seed in zip(paths, ("5", "5", "6")):
        assert run("train", LITTLE_PIG, *SHORT, "--seed", seed,
                   "--out", str(path)).exit_code == 0
    a, b, c = (arrays(p) for p in paths)
    assert a.keys() == b.keys()
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert paths[0].read_bytes() == paths[1].read_bytes()  # the file too, byte for byte
    assert not np.array_equal(a["w0"], c["w0"])


def test_any_number_of_jobs_trains_the_same_model(tmp_path: Path) -> None:
    one, two = tmp_path / "one.npz", tmp_path / "two.npz"
    assert run("train", LITTLE_PIG, *SHORT, "--out", str(one)).exit_code == 0
    result = run("train", LITTLE_PIG, *SHORT, "--jobs", "2", "--out", str(two))
    assert result.exit_code == 0, result.output
    assert one.read_bytes() == two.read_bytes()


def test_a_trained_model_beats_random_clearly(trained: Path) -> None:
    # 200 games, the seats alternating; measured 84.5% (seed 0), the threshold far below
    result = run("simulate", LITTLE_PIG, "--bots", f"net:{trained},random", "--games", "200",
                 "--jobs", "1", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    by_bot = {b["bot"]: b for b in report["by_bot"]}
    rate = by_bot[f"net:{trained}"]["win_rate"]
    assert rate["rate"] > 0.65 and rate["ci95"][0] > 0.55, rate


def test_the_net_bots_play_only_legal_actions(trained: Path) -> None:
    game = rulekit.load_game(LITTLE_PIG)
    for spec in (f"net:{trained}", f"mcts:30:net:{trained}"):
        bot = make(spec, seed=1)
        for seed in range(3):
            st = game.new_game(2, seed=seed)
            rng = random.Random(seed)
            while not st.is_over:
                if st.is_chance:
                    st.resolve_chance()
                    continue
                legal = [a.label for a in st.legal_actions()]
                action = bot.choose(st, rng)
                assert action.label in legal
                st.apply(action)


def test_specs_name_a_model_and_keep_its_case(trained: Path) -> None:
    assert split_model("MCTS:500:Net:Models/Q.npz") == ("mcts:500:net", "Models/Q.npz")
    assert split_model("mcts:400:greedy") == ("mcts:400:greedy", None)
    assert check_spec(f" NET:{trained} ") == f"net:{trained}"
    assert isinstance(make(f"net:{trained}"), NetBot)
    searcher = make(f"mcts:40:net:{trained}")
    assert isinstance(searcher, NetMctsBot) and searcher.iterations == 40
    with pytest.raises(RulekitError, match="names its model file"):
        make("net")
    with pytest.raises(RulekitError, match="no rollout policy"):
        make(f"mcts:40:greedy:net:{trained}")
    with pytest.raises(RulekitError, match="too large"):
        make(f"mcts:20000:net:{trained}")
    with pytest.raises(RulekitError, match="takes no options"):
        make(f"greedy:net:{trained}")


def test_a_model_for_another_game_or_variant_is_refused(trained: Path) -> None:
    for args, words in [((PIG,), "trained for the game 'Little Pig', not 'Pig'"),
                        ((LITTLE_PIG, "--set", "goal=20"), "other params of Little Pig"),
                        ((LITTLE_PIG, "--players", "3"), "trained for 2 players, not 3")]:
        result = run("simulate", *args, "--bots", f"net:{trained},random", "--games", "2")
        assert result.exit_code == 1, result.output
        assert words in result.stderr and result.stderr.count("\n") == 1
    result = run("play", PIG, "--auto", "--bots", f"net:{trained}")
    assert result.exit_code == 1 and "not 'Pig'" in result.stderr
    bot = make(f"net:{trained}")
    st = rulekit.load_game(PIG).new_game(2, seed=1)
    while st.is_chance:
        st.resolve_chance()
    with pytest.raises(RulekitError, match="not 'Pig'"):
        bot.choose(st, random.Random(1))


def test_a_variant_trains_its_own_model(tmp_path: Path) -> None:
    out = tmp_path / "goal20.npz"
    assert run("train", LITTLE_PIG, *SHORT, "--set", "goal=20", "--out", str(out)).exit_code == 0
    assert load(out).header["params"] == {"goal": 20}
    ok = run("simulate", LITTLE_PIG, "--set", "goal=20", "--bots", f"net:{out},random",
             "--games", "2")
    assert ok.exit_code == 0, ok.output
    refused = run("simulate", LITTLE_PIG, "--bots", f"net:{out},random", "--games", "2")
    assert refused.exit_code == 1 and "differ in goal" in refused.stderr


def _rewritten(source: Path, target: Path, change: dict[str, np.ndarray | None]) -> Path:
    """The model with arrays replaced (None: removed), written as np.savez would."""
    data = arrays(source)
    for key, value in change.items():
        if value is None:
            data.pop(key)
        else:
            data[key] = value
    np.savez(target, **data)
    return target


def _header(source: Path, **fields: object) -> np.ndarray:
    header = json.loads(arrays(source)["header"].tobytes())
    header.update(fields)
    return np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)


def test_damaged_or_hostile_model_files_are_refused(trained: Path, tmp_path: Path) -> None:
    w0 = arrays(trained)["w0"]
    text = tmp_path / "text.npz"
    text.write_text("not a model\n")
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(trained.read_bytes()[:300])
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, **{**arrays(trained), "w0": np.array([{"a": 1}], dtype=object)})
    bomb = tmp_path / "bomb.npz"  # an array declaring 10^12 values in a few bytes
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buffer, {"descr": "<f8", "fortran_order": False, "shape": (10**6, 10**6)})
    with zipfile.ZipFile(bomb, "w") as archive, zipfile.ZipFile(trained) as good:
        for name in good.namelist():
            data = buffer.getvalue() + b"\0" * 64 if name == "w0.npy" else good.read(name)
            archive.writestr(name, data)
    cases = {
        text: "not an .npz archive",
        truncated: "not a model file",
        pickled: "not plain numbers",
        bomb: "declares more values than it holds",
        _rewritten(trained, tmp_path / "nan.npz", {"w0": np.full_like(w0, np.nan)}):
            "NaN or infinite",
        _rewritten(trained, tmp_path / "shape.npz", {"w0": w0[:-1]}): "wrong shape",
        _rewritten(trained, tmp_path / "missing.npz", {"scale": None}): "arrays are not",
        _rewritten(trained, tmp_path / "extra.npz", {"evil": np.zeros(3)}): "arrays are not",
        _rewritten(trained, tmp_path / "ints.npz", {"w0": w0.astype(np.int64)}):
            "not plain numbers",
        _rewritten(trained, tmp_path / "header.npz", {"header": np.zeros(5, np.uint8)}):
            "header is not a JSON",
        _rewritten(trained, tmp_path / "format.npz",
                   {"header": _header(trained, format="other")}): "another format",
        tmp_path / "absent.npz": "no such file",
        tmp_path: "not a file",
    }
    for path, words in cases.items():
        with pytest.raises(RulekitError, match=words):
            make(f"net:{path}")
        result = run("simulate", LITTLE_PIG, "--bots", f"net:{path},random", "--games", "2")
        assert result.exit_code == 2 and words in result.stderr, (path, result.output)


def test_model_files_with_changed_bytes_load_or_are_refused(trained: Path) -> None:
    data = trained.read_bytes()
    rng = random.Random(7)
    for i in range(300):
        damaged = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        path = trained.parent / f"fuzz{i % 3}.npz"
        path.write_bytes(bytes(damaged))
        try:
            model = load(path)
        except RulekitError as exc:
            assert "cannot use the model" in str(exc)
            continue
        values = model.values(np.zeros((2, model.inputs)))
        assert values.shape == (2,)


def test_a_game_file_names_no_model_and_a_folder_keeps_its_models(
        trained: Path, tmp_path: Path) -> None:
    game = tmp_path / "game"
    game.mkdir()
    text = Path(LITTLE_PIG).read_text(encoding="utf-8")
    (game / "pig.yaml").write_text(
        text + "levels:\n  - {name: One, min_score: 0, bots: [net:/etc/passwd]}\n")
    result = run("validate", str(game / "pig.yaml"))
    assert result.exit_code == 1 and "levels" in result.output
    (game / "model.npz").write_bytes(trained.read_bytes())
    (game / "link.npz").symlink_to(trained)  # a link that leads out of the folder
    assert isinstance(make("net:model.npz", root=str(game)), NetBot)
    for spec in ("net:../models/x.npz", f"net:{trained}", "net:link.npz",
                 "mcts:10:net:../x.npz"):
        with pytest.raises(RulekitError, match="outside the game's folder"):
            make(spec, root=str(game))


def test_ctrl_c_keeps_the_best_model_so_far(monkeypatch: pytest.MonkeyPatch,
                                            tmp_path: Path) -> None:
    seen = command.TrainProgress.seen

    def interrupt(self: command.TrainProgress, trainer: Trainer) -> None:
        seen(self, trainer)
        if trainer.games >= 24:
            raise KeyboardInterrupt

    monkeypatch.setattr(command.TrainProgress, "seen", interrupt)
    out = tmp_path / "stopped.npz"
    result = run("train", LITTLE_PIG, "--games", "400", "--checkpoint", "8",
                 "--eval-games", "4", "--out", str(out))
    assert result.exit_code == 130, result.output
    assert "(interrupted)" in result.stderr and "<- kept" in result.stderr
    kept = load(out)
    assert kept.header["training"]["games_played"] <= 24


def _busy_for(pid: int, seconds: float) -> None:
    """Wait until the process has used `seconds` of CPU (60 s at most; a fixed wait where
    /proc is missing), so that a loaded machine does not stop it before it trains."""
    stat = Path(f"/proc/{pid}/stat")
    if not stat.exists():
        time.sleep(2 * seconds)
        return
    tick = os.sysconf("SC_CLK_TCK")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        fields = stat.read_text().rsplit(")", 1)[1].split()
        if (int(fields[11]) + int(fields[12])) / tick >= seconds:
            return
        time.sleep(0.2)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_real_ctrl_c_keeps_the_model_and_exits_130(tmp_path: Path, jobs: str) -> None:
    # scikit-learn swallows Ctrl-C inside its optimiser: training must still stop
    out = tmp_path / "stopped.npz"
    process = subprocess.Popen(
        [sys.executable, "-m", "rulekit", "train", LITTLE_PIG, "--games", "100000",
         "--checkpoint", "8", "--eval-games", "2", "--jobs", jobs, "--out", str(out)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _busy_for(process.pid, 4.0)  # started (some 2.5 s), then trained for a while
    process.send_signal(signal.SIGINT)
    # the pass under way ends and the model is written: slow on a loaded machine
    _, err = process.communicate(timeout=180)
    assert process.returncode == 130, err
    assert "Traceback" not in err and "(interrupted)" in err
    assert load(out).header["training"]["games_played"] > 0


def test_a_trainer_keeps_its_best_checkpoint() -> None:
    game = rulekit.load_game(LITTLE_PIG)
    trainer = Trainer(game, Settings(players=2, games=24, checkpoint=8, eval_games=4))
    model = trainer.run()
    assert len(trainer.checkpoints) == 3
    assert trainer.best is not None and model is trainer.best.model
    assert trainer.best.vs_greedy == max(c.vs_greedy for c in trainer.checkpoints)


def test_the_progress_line_shows_games_and_the_last_checkpoint() -> None:
    line = command.TrainProgress(Settings(players=2, games=100))
    line.started, line.done = 0.0, 50
    line.trainer = SimpleNamespace(checkpoints=[Checkpoint(40, 0.75, 0.5, None)])
    assert line.text(10.0) == "training: 50/100 games, 5.0/s, 10s left | vs greedy 75%, last 50%"
    assert len(line.text(10.0)) < 80


def test_lambda_returns_mix_the_next_values_and_the_result() -> None:
    assert lambda_returns([0.2, 0.4, 0.6], 1.0, 1.0) == [1.0, 1.0, 1.0]
    assert lambda_returns([0.2, 0.4, 0.6], 1.0, 0.0) == [0.4, 0.6, 1.0]
    assert lambda_returns([0.2, 0.4, 0.6], 0.0, 0.5) == pytest.approx([0.35, 0.3, 0.0])


def test_train_refuses_usage_mistakes(tmp_path: Path) -> None:
    result = run("train", LITTLE_PIG, "--jobs", "0", "--out", str(tmp_path / "m.npz"))
    assert result.exit_code == 2
    result = run("train", LITTLE_PIG, "--players", "9", "--out", str(tmp_path / "m.npz"))
    assert result.exit_code == 2
    result = run("train", LITTLE_PIG, "--set", "nope=1", "--out", str(tmp_path / "m.npz"))
    assert result.exit_code == 1 and "nope" in result.stderr
    result = run("train", LITTLE_PIG, *SHORT, "--out", str(tmp_path / "no" / "m.npz"))
    assert result.exit_code == 1 and "does not exist" in result.stderr
