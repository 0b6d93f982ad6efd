"""A live progress line on stderr for long studies: games done, rate and time left.

It shows only when stderr is a terminal, so pipes, files and `--json` stay clean, and
only once a run has lasted a second: short runs print nothing extra.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import TextIO

#: seconds before the line first appears, and between redraws
DELAY = 1.0
REDRAW = 0.2


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m {seconds % 60:02d}s"
    return f"{seconds // 3600}h {seconds % 3600 // 60:02d}m"


class ProgressLine:
    """`update(n)` after n more games. A thread redraws one line in place (so that a run
    whose first game takes long still shows it is working); the line is cleared on exit."""

    def __init__(self, total: int, label: str = "playing", stream: TextIO | None = None,
                 force: bool | None = None, clock: Callable[[], float] | None = None) -> None:
        self.total = total
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.clock = clock or time.monotonic
        self.enabled = force if force is not None else _is_terminal(self.stream)
        self.done = 0
        self.started = self.clock()
        self.width = 0
        self.finished: float | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> ProgressLine:
        self.started = self.clock()
        if self.enabled:
            self._thread = threading.Thread(target=self._redraw, daemon=True)
            self._thread.start()
        return self

    def _redraw(self) -> None:
        if self._stop.wait(DELAY):
            return
        while True:
            self.draw()
            if self._stop.wait(REDRAW):
                return

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self.width:  # leave the terminal as it was: the report starts on a clean line
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()

    def text(self, now: float) -> str:
        """The line: games done of the total, games a second and the time left."""
        if self.finished is not None:
            now = self.finished
        elapsed = max(now - self.started, 1e-9)
        rate = self.done / elapsed
        digits = 1 if rate >= 1 else 2
        line = f"{self.label}: {self.done}/{self.total} games, {rate:.{digits}f} games/s"
        if not self.done:
            line += f", {_duration(elapsed)} so far"
        elif self.done < self.total:
            line += f", about {_duration((self.total - self.done) / rate)} left"
        return line

    def update(self, n: int) -> None:
        self.done += n
        if self.done >= self.total and self.finished is None:
            # the rate of the games alone: a pool or cluster shutting down plays none
            self.finished = self.clock()

    def draw(self) -> None:
        """Write the line over the previous one (truncated to fit 80 columns)."""
        line = self.text(self.clock())[:79]
        self.stream.write("\r" + line.ljust(self.width))
        self.stream.flush()
        self.width = max(self.width, len(line))


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
