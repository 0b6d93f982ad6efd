"""`rulekit train` behind the command line: the progress line, Ctrl-C, the model written
and the report of the checkpoints."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from rulekit.learn.train import Settings, Trainer
from rulekit.studies.progress import ProgressLine, _duration
from rulekit.text import printable

if TYPE_CHECKING:
    from rulekit import Game


class TrainProgress(ProgressLine):
    """The progress line of a training run: games, rate, time left, and the last
    checkpoint's share of the win against greedy and against the checkpoint before."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings.games or 0, "training")
        self.settings = settings
        self.trainer: Trainer | None = None

    def seen(self, trainer: Trainer) -> None:
        self.trainer = trainer
        self.update(trainer.games - self.done)

    def text(self, now: float) -> str:
        elapsed = max(now - self.started, 1e-9)
        rate = self.done / elapsed
        line = f"training: {self.done}"
        s = self.settings
        if s.games is not None:
            line += f"/{s.games}"
        line += f" games, {rate:.1f}/s"
        left = [((s.games - self.done) / rate) if s.games is not None and rate else None,
                (s.minutes * 60 - elapsed) if s.minutes is not None else None]
        known = [x for x in left if x is not None]
        if known:
            line += f", {_duration(max(0.0, min(known)))} left"
        trainer = self.trainer
        if trainer is not None and trainer.checkpoints:
            last = trainer.checkpoints[-1]
            line += f" | vs greedy {last.vs_greedy:.0%}"
            if last.vs_previous is not None:
                line += f", last {last.vs_previous:.0%}"
        return line


def default_out(file: str, players: int) -> str:
    """Where a model goes without `--out`: the game file's name and the player count."""
    return f"{Path(file).stem}-{players}p.npz"


def run(game: Game, settings: Settings, out: str, jobs: int = 1) -> None:
    """Train, write the best model to `out` and report; on Ctrl-C write the best model so
    far and exit with 130."""
    started = time.monotonic()
    trainer = Trainer(game, settings, jobs)
    progress = TrainProgress(settings)
    try:
        with progress:
            trainer.run(progress.seen)
    except KeyboardInterrupt:
        kept = trainer.kept()
        if kept is None:
            click.echo("interrupted before the first games were learnt: no model written",
                       err=True)
        else:
            kept.save(out)
            report(trainer, out, time.monotonic() - started, interrupted=True)
        raise click.exceptions.Exit(130) from None
    kept = trainer.kept()
    assert kept is not None
    kept.save(out)
    report(trainer, out, time.monotonic() - started)


def report(trainer: Trainer, out: str, seconds: float, interrupted: bool = False) -> None:
    """The checkpoints (share of the win against greedy and the previous one) and where
    the model went; on stdout, or on stderr after Ctrl-C."""
    s = trainer.settings
    err = interrupted
    lines = [f"{printable(trainer.game.name)}, {s.players} players: {trainer.games} games of "
             f"self-play in {_duration(seconds)}" + (" (interrupted)" if interrupted else ""),
             f"checkpoint  games  vs greedy  vs previous   ({s.eval_games} games each, "
             f"share of the win)"]
    for i, c in enumerate(trainer.checkpoints, 1):
        previous = "" if c.vs_previous is None else f"{c.vs_previous:.0%}"
        mark = "  <- kept" if c is trainer.best else ""
        lines.append(f"{i:>10}  {c.games:>5}  {c.vs_greedy:>9.0%}  {previous:>11}{mark}")
    if trainer.best is None:
        lines.append("no checkpoint yet: the network as it stands is kept")
    lines.append(f"model written to {printable(out)}; play it with --bots net:{printable(out)}")
    for line in lines:
        click.echo(line, err=err)
