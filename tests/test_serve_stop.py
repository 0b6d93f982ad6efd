"""Ctrl-C on `rulekit serve` with a page open: one line, exit 130, no traceback."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("starlette")

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(port: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("the server did not start")


def test_ctrl_c_with_an_event_stream_open_stops_cleanly(tmp_path: Path) -> None:
    port = _free_port()
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "rulekit.cli", "serve", "qwixx", "--port", str(port),
         "--db", str(tmp_path / "games.sqlite3")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        _wait_for(port, proc)
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        c.request("POST", "/api/games", json.dumps({"game": "qwixx",
                                                    "seats": ["human", "greedy"]}),
                  {"Content-Type": "application/json"})
        token = json.loads(c.getresponse().read())["seats"]["0"]["token"]
        stream = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        stream.request("GET", f"/api/seat/{token}/events")
        response = stream.getresponse()
        assert response.status == 200
        response.fp.readline()  # the stream is open and has sent its first event
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert len([line for line in err.splitlines() if line.strip()]) <= 1, err
