"""The studies as a designer uses them: intervals that are right, the same report in any
number of processes, paired comparisons, sweeps, plots, output files and Ctrl-C."""

from __future__ import annotations

import csv
import gc
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from rulekit.cli import main
from rulekit.studies.stats import Mean, Tally, t975, wilson

ROOT = Path(__file__).resolve().parent.parent
QWIXX = str(ROOT / "games" / "qwixx.yaml")
LEVELX = str(ROOT / "games" / "levelx.yaml")
LEVELX_LONG = str(ROOT / "games" / "levelx-long.yaml")


def run(*args: str) -> Result:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert "Traceback" not in result.output
    if result.exception is not None:
        assert isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def report(*args: str) -> dict:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    data.pop("seconds")
    return data


# ---- the statistics ---------------------------------------------------------------------------
def test_wilson_intervals_match_the_textbook_values() -> None:
    assert wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson(364, 1000) == pytest.approx((0.3348, 0.3943), abs=1e-4)


def test_t_quantiles_from_the_table_and_the_expansion() -> None:
    assert t975(1) == pytest.approx(12.706, abs=1e-3)
    assert t975(30) == pytest.approx(2.0423, abs=1e-4)
    # the expansion above the table is within 0.0005 of the exact quantiles
    for df, exact in ((31, 2.0395), (40, 2.0211), (100, 1.9840), (1000, 1.9623)):
        assert t975(df) == pytest.approx(exact, abs=5e-4)


def test_streamed_mean_percentiles_and_interval_equal_the_batch_ones() -> None:
    values = [3, 7, 7, 1, 12, -4, 7, 0, 9, 9, 2, 30]
    t = Tally()
    for v in values:
        t.add(v)
    s = t.summary()
    assert s["mean"] == pytest.approx(statistics.fmean(values), abs=1e-4)
    assert s["stdev"] == pytest.approx(statistics.stdev(values), abs=1e-4)
    cuts = statistics.quantiles(values, n=20, method="inclusive")  # 5%, 10%, ... 95%
    assert [s["percentiles"][k] for k in ("5", "25", "50", "75", "95")] == pytest.approx(
        [cuts[0], cuts[4], cuts[9], cuts[14], cuts[18]], abs=1e-4)
    half = 2.2010 * statistics.stdev(values) / len(values) ** 0.5  # t(0.975, 11)
    assert s["ci95"] == pytest.approx([s["mean"] - half, s["mean"] + half], abs=1e-3)
    assert (s["min"], s["max"]) == (-4, 30)
    m = Mean()
    m.add(5)
    assert m.ci95() == (5, 5)


# ---- simulate ---------------------------------------------------------------------------------
def test_simulate_reports_intervals_percentiles_ties_edge_and_choice() -> None:
    r = report("simulate", LEVELX, "--players", "2", "--games", "60", "--seed", "3")
    seat = r["by_seat"][0]
    lo, hi = seat["win_rate"]["ci95"]
    assert lo < seat["win_rate"]["rate"] < hi
    assert r["first_player_edge"]["diff"] == pytest.approx(seat["win_rate"]["rate"] - 0.5,
                                                          abs=1e-4)
    sc = seat["score"]
    p = sc["percentiles"]
    assert sc["min"] <= p["5"] <= p["25"] <= p["50"] <= p["75"] <= p["95"] <= sc["max"]
    assert sc["ci95"][0] < sc["mean"] < sc["ci95"][1]
    assert 0 <= r["tie_rate"]["rate"] <= r["tie_rate"]["ci95"][1]
    assert r["options_per_decision"]["max"] >= r["options_per_decision"]["mean"] > 1
    assert sum(r["end_reasons"].values()) == 60
    assert set(r["end_reason_rates"]) == set(r["end_reasons"])


def test_the_text_report_names_the_significant_seats() -> None:
    out = run("simulate", LEVELX, "--players", "2", "--games", "40").output
    assert "95% intervals in brackets" in out
    assert out.count("seats: ") == 1 and "fair share 50.0%" in out
    assert "first-player edge:" in out and "options per decision:" in out


def test_two_processes_give_the_report_of_one() -> None:
    args = ("simulate", QWIXX, "--players", "3", "--games", "40", "--seed", "9",
            "--bots", "random,greedy")
    one = report(*args, "--jobs", "1")
    two = report(*args, "--jobs", "2")
    assert one == two
    assert one["games"] == 40


def test_games_out_writes_one_line_per_game(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    r = report("simulate", QWIXX, "--games", "12", "--games-out", out)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [g["game"] for g in lines] == list(range(12))
    assert {"seed", "bots", "scores", "winners", "turns", "decisions", "end"} <= set(lines[0])
    assert sum(g["turns"] for g in lines) / 12 == pytest.approx(
        r["length"]["turns"]["mean"], abs=1e-4)


def test_ctrl_c_prints_the_report_of_the_games_finished(tmp_path: Path) -> None:
    for jobs in ("1", "2"):
        out = tmp_path / f"games-{jobs}.jsonl"
        proc = subprocess.Popen(
            [sys.executable, "-m", "rulekit.cli", "simulate", QWIXX, "--games", "1000000",
             "--json", "--jobs", jobs, "--games-out", str(out)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
            # Ctrl-C reaches it even when this test runs where SIGINT is ignored (a background job)
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        try:
            deadline = time.monotonic() + 60
            while (not out.exists() or out.stat().st_size < 2000) and time.monotonic() < deadline:
                time.sleep(0.1)
            proc.send_signal(signal.SIGINT)
            stdout, stderr = proc.communicate(timeout=60)
        finally:
            proc.kill()
        assert proc.returncode == 130, stderr
        assert "Traceback" not in stderr
        data = json.loads(stdout)
        assert data["interrupted"] and data["games_planned"] == 1000000
        assert 0 < data["games"] < 1000000
        assert sum(data["end_reasons"].values()) == data["games"]
        assert len(out.read_text().splitlines()) == data["games"]


def test_ctrl_c_while_a_game_is_counted_stops_after_it_is_counted() -> None:
    """The report and the games file hold the same whole games whenever Ctrl-C comes: one
    that comes while a finished game is being counted takes effect right after it."""
    import rulekit
    from rulekit.studies.simulate import stream

    game = rulekit.load_game(QWIXX)
    counted: list[tuple] = []

    def add(rows: tuple) -> None:
        if len(counted) == 2:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C in the middle of counting game 3
        counted.append(rows)

    # Python's own Ctrl-C, also where this test runs with SIGINT ignored (a background job)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        done, _seconds, stopped = stream([game], 10, 2, ["random"], 0, add, 1, None, None,
                                         None)
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before)
    assert stopped and done == len(counted) == 3


def test_a_rule_that_breaks_names_the_game_in_any_number_of_processes(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text(Path(QWIXX).read_text().replace(
        "- params.penalty_points * player.penalties",
        "- params.penalty_points * player.penalties // (turn - turn)"))
    for jobs in ("1", "2"):
        result = run("simulate", broken, "--games", "20", "--jobs", jobs)
        assert result.exit_code == 1
        assert re.search(r"game 0 \(seed \d+, bots random, random\): .*the score", result.output)


# ---- compare ----------------------------------------------------------------------------------
def test_compare_on_common_seeds_isolates_the_change() -> None:
    r = report("compare", QWIXX, "--set-b", "penalty_points=10", "--games", "40",
               "--players", "3", "--seed", "2")
    d = {x["figure"]: x for x in r["differences"]}
    # random bots do not look at scores: same seeds, same games, only the penalties differ
    assert d["turns"]["diff"] == 0 and d["turns"]["ci95"] == [0, 0]
    assert not d["turns"]["significant"]
    assert d["score (all seats)"]["diff"] < 0 and d["score (all seats)"]["significant"]
    assert r["a"]["params"]["penalty_points"] == 5 and r["b"]["params"]["penalty_points"] == 10
    assert r["a"]["games"] == r["b"]["games"] == 40


def test_compare_a_base_with_its_variant_and_the_text_table() -> None:
    result = run("compare", LEVELX, LEVELX_LONG, "--players", "2", "--games", "20")
    assert result.exit_code == 0, result.output
    assert "B = " in result.output and "levelx-long.yaml" in result.output
    assert "95% interval" in result.output and "seat 0 win rate" in result.output
    assert run("compare", LEVELX).exit_code == 2


# ---- sweep ------------------------------------------------------------------------------------
def test_sweep_table_csv_and_json(tmp_path: Path) -> None:
    table = tmp_path / "sweep.csv"
    r = report("sweep", QWIXX, "--vary", "penalty_points=[0, 5, 10]", "--games", "30",
               "--players", "3", "--csv", table)
    assert [p["values"] for p in r["points"]] == [{"penalty_points": v} for v in (0, 5, 10)]
    means = [p["report"]["score"]["mean"] for p in r["points"]]
    assert means[0] > means[1] > means[2]
    rows = list(csv.DictReader(table.open()))
    assert [row["penalty_points"] for row in rows] == ["0", "5", "10"]
    assert float(rows[2]["score low"]) < float(rows[2]["score"]) < float(rows[2]["score high"])
    text = run("sweep", QWIXX, "--vary", "penalty_points=[0, 5]", "--vary",
               "max_penalties=[3, 4]", "--games", "5").output
    tables = [line for line in text.splitlines() if line.startswith("penalty_points")]
    assert tables  # the table is split to fit 80 columns: each part has the 4 points
    assert len([line for line in text.splitlines() if line[:1].isdigit()]) == 4 * len(tables)


@pytest.mark.parametrize(("vary", "message"), [
    ("nosuch=[1, 2]", "nosuch"),
    ("penalty_points=[-1]", "penalty_points"),
])
def test_sweep_bad_vary_is_one_message(vary: str, message: str) -> None:
    """A param the game does not have, or a value it does not allow: the file says no."""
    result = run("sweep", QWIXX, "--vary", vary, "--games", "2")
    assert result.exit_code == 1
    assert message in result.output


# ---- plots ------------------------------------------------------------------------------------
def test_plots_are_valid_png_and_svg(tmp_path: Path) -> None:
    png, svg, sweep_png = tmp_path / "s.png", tmp_path / "c.svg", tmp_path / "w.png"
    assert run("simulate", QWIXX, "--games", "10", "--plot", png).exit_code == 0
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert run("compare", QWIXX, "--set-b", "penalty_points=8", "--games", "10",
               "--plot", svg).exit_code == 0
    import xml.etree.ElementTree as ET

    assert ET.parse(svg).getroot().tag == "{http://www.w3.org/2000/svg}svg"
    assert run("sweep", QWIXX, "--vary", "penalty_points=[2, 8]", "--games", "5",
               "--plot", sweep_png).exit_code == 0
    assert sweep_png.read_bytes().startswith(b"\x89PNG")


def test_a_plot_without_matplotlib_or_of_another_format_is_one_message(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = run("simulate", QWIXX, "--games", "5", "--plot", tmp_path / "x.jpg")
    assert result.exit_code == 1 and "must end in .png or .svg" in result.output
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if the extra were not installed
    result = run("simulate", QWIXX, "--games", "5", "--plot", tmp_path / "x.png")
    assert result.exit_code == 1
    # this is a source checkout: the hint installs the extra into it, not a rulekit from PyPI
    assert "python -m pip install -e '.[plot]'" in result.output
    assert not (tmp_path / "x.png").exists() and "games" not in result.output


STUDIES = {
    "simulate": ("simulate", QWIXX),
    "compare": ("compare", QWIXX, "--set-b", "penalty_points=9"),
    "sweep": ("sweep", QWIXX, "--vary", "penalty_points=[3, 8]"),
}


@pytest.mark.parametrize(("study", "option", "name"), [
    ("simulate", "--plot", "figures.png"), ("simulate", "--games-out", "games.jsonl"),
    ("compare", "--plot", "figures.svg"), ("compare", "--games-out", "games.jsonl"),
    ("sweep", "--plot", "figures.png"), ("sweep", "--games-out", "games.jsonl"),
    ("sweep", "--csv", "table.csv"),
])
def test_an_output_that_cannot_be_written_is_said_before_any_game(
        tmp_path: Path, study: str, option: str, name: str) -> None:
    """Before, a study played every game and then died with a traceback on its --plot or
    --csv; a million games show that nothing is played before the message now."""
    a_file = tmp_path / "a-file"
    a_file.write_text("kept\n")
    places = {
        tmp_path / "missing" / name: f"the folder {tmp_path / 'missing'} does not exist",
        a_file / name: f"{a_file} is a file, not a folder",
        Path("/proc") / name: "cannot be written",  # a folder no one may write in
    }
    for path, why in places.items():
        started = time.monotonic()
        result = run(*STUDIES[study], "--games", "1000000", "--jobs", "1", option, path)
        assert result.exit_code == 1, result.output
        [line] = result.stderr.strip().splitlines()  # one line, and no report
        assert line.startswith(f"error: {option} {path}: {why}") and result.stdout == ""
        assert time.monotonic() - started < 20
    assert a_file.read_text() == "kept\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]  # nothing left behind


def test_an_existing_output_file_is_written_over_after_the_check(tmp_path: Path) -> None:
    table = tmp_path / "table.csv"
    table.write_text("old\n")
    result = run(*STUDIES["sweep"], "--games", "4", "--csv", table)
    assert result.exit_code == 0, result.output
    assert table.read_text().startswith("penalty_points,")


# ---- Dask -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  host="127.0.0.1", dashboard_address=None) as c:
        yield c


def test_a_dask_cluster_gives_the_report_of_a_local_run(cluster) -> None:
    args = ("simulate", QWIXX, "--players", "3", "--games", "40", "--seed", "5")
    assert report(*args, "--dask", cluster.scheduler_address) == report(*args, "--jobs", "1")
    args = ("compare", QWIXX, "--set-b", "penalty_points=9", "--games", "24", "--seed", "5")
    assert report(*args, "--dask", cluster.scheduler_address) == report(*args, "--jobs", "1")


def test_a_worker_that_dies_loses_no_games(cluster) -> None:
    from distributed import Client

    from rulekit import load_game
    from rulekit.studies.simulate import simulate

    game = load_game(QWIXX)
    with Client(cluster.scheduler_address) as client:
        pids = list(client.run(os.getpid).values())
    killed: list[int] = []

    def kill_one(n: int) -> None:
        if not killed:
            killed.append(pids[0])
            os.kill(pids[0], signal.SIGKILL)

    kwargs = {"games": 200, "players": 3, "bots": ["random"], "seed": 8}
    r = simulate(game, **kwargs, dask=cluster.scheduler_address, progress=kill_one)
    local = simulate(game, **kwargs)
    assert killed
    r.pop("seconds"), local.pop("seconds")
    assert r == local and r["games"] == 200


def listening_ports(pids: list[int] | None = None) -> set[int]:
    """The TCP ports this process, or these processes, listen on."""
    psutil = pytest.importorskip("psutil")
    ports = set()
    for pid in pids or [os.getpid()]:
        try:
            process = psutil.Process(pid)
            ports |= {c.laddr.port for c in process.net_connections("tcp")
                      if c.status == psutil.CONN_LISTEN}
        except psutil.NoSuchProcess:
            pass
    return ports


def test_dask_local_is_a_cluster_no_one_else_can_use(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any user of the machine could submit code to the old `--dask local` cluster (plain
    TCP, no key) and read its dashboard; now only the study's own client gets in."""
    distributed = pytest.importorskip("distributed")
    pytest.importorskip("cryptography")
    from distributed.comm.core import CommClosedError

    from rulekit.studies import cluster as cluster_module

    made = cluster_module.local_cluster
    before = listening_ports()
    seen: list[str] = []

    def attacked(module):
        cluster = made(module)
        address = cluster.scheduler_address
        seen.append(address)
        assert address.startswith("tls://127.0.0.1:"), address
        # a client with no key, or with a key of its own, or over plain TCP, gets nowhere;
        # each one refused is collected at once: its __del__ closing it at a later garbage
        # collection, inside the next client's start, deadlocks distributed's loop runner
        with pytest.raises(TypeError, match="TLS"):
            distributed.Client(address, timeout="3s")
        gc.collect()
        with pytest.raises(CommClosedError):
            distributed.Client(address, timeout="3s", security=distributed.Security.temporary())
        gc.collect()
        with pytest.raises((CommClosedError, OSError)):
            distributed.Client("tcp://" + address[len("tls://"):], timeout="3s")
        gc.collect()
        # every port the cluster opened speaks TLS: no dashboard, no web page of a worker
        # asked of the scheduler once every worker is in (the cluster's own copy of this is
        # refreshed now and then, and lags on a busy machine)
        with distributed.Client(cluster, security=cluster.security) as client:
            client.wait_for_workers(len(cluster.workers), timeout=60)
            info = client.scheduler_info()["workers"]
        tls = {address, *info, *(w["nanny"] for w in info.values())}
        assert all(a.startswith("tls://") for a in tls), tls
        workers = [nanny.process.process.pid for nanny in cluster.workers.values()]
        opened = (listening_ports() - before) | listening_ports(workers)
        assert opened == {int(a.rsplit(":", 1)[1]) for a in tls}, (opened, tls)
        return cluster

    monkeypatch.setattr(cluster_module, "local_cluster", attacked)
    args = ("simulate", QWIXX, "--players", "3", "--games", "30", "--seed", "5")
    assert report(*args, "--dask", "local") == report(*args, "--jobs", "1")
    assert len(seen) == 1
    assert listening_ports() - before == set()  # and it is gone when the study ends


def test_an_unreachable_scheduler_is_one_message() -> None:
    result = run("simulate", QWIXX, "--games", "2", "--dask", "tcp://127.0.0.1:9")
    assert result.exit_code == 1
    assert "cannot reach the Dask scheduler" in result.output


def test_a_vary_value_that_is_not_a_list_is_a_usage_error() -> None:
    result = run("sweep", QWIXX, "--vary", "penalty_points=5", "--games", "5")
    assert result.exit_code == 2
    assert "must be a YAML list" in result.output and "Traceback" not in result.output


def test_the_install_hint_fits_how_rulekit_was_installed(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from rulekit.studies import command

    assert "pip install -e '.[plot]'" in command.install_hint("plot")
    package = tmp_path / "site-packages" / "rulekit" / "studies"
    package.mkdir(parents=True)
    monkeypatch.setattr(command, "__file__", str(package / "command.py"))
    assert command.install_hint("plot") == "pip install 'rulekit[plot]'"
