"""`rulekit test`: which tests files the paths name, running them, and the report."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rulekit.errors import Diagnostic, GameFileError, RulekitError
from rulekit.scenarios.runner import Outcome, run_suite
from rulekit.scenarios.suite import TESTS_SUFFIXES, is_tests_file, load_suite, tests_file_of


@dataclass
class Report:
    outcomes: list[Outcome] = field(default_factory=list)
    problems: list[Diagnostic] = field(default_factory=list)  # files that could not run
    skipped: list[tuple[str, str, str]] = field(default_factory=list)  # file, name, why

    @property
    def ok(self) -> bool:
        return not self.problems and all(o.ok for o in self.outcomes)

    def summary(self) -> str:
        failed = sum(not o.ok for o in self.outcomes)
        text = (f"{len(self.outcomes)} scenarios: {len(self.outcomes) - failed} passed, "
                f"{failed} failed")
        if self.skipped:
            text += f", {len(self.skipped)} of the base tests skipped"
        if self.problems:
            text += f"; {len({d.file for d in self.problems})} file(s) could not run"
        return text

    def text(self) -> str:
        lines = [line for o in self.outcomes for line in o.lines()]
        lines += [d.format() for d in self.problems]
        return "\n".join(lines + [self.summary()])

    def as_dict(self) -> dict:
        return {"ok": self.ok, "summary": self.summary(),
                "scenarios": [o.as_dict() for o in self.outcomes],
                "skipped": [{"file": f, "scenario": n, "why": w} for f, n, w in self.skipped],
                "problems": [d.as_dict() for d in self.problems]}


def tests_files(path: str, untested_ok: bool = False) -> list[Path] | Diagnostic:
    """The tests files a path names: itself, the one beside a game file, or a folder's;
    with `untested_ok`, a game file without tests names none."""
    p = Path(path)
    if p.is_dir():
        found = sorted(f for f in p.iterdir()
                       if f.name.lower().endswith(TESTS_SUFFIXES) and f.is_file())
        return found or Diagnostic(path, 0, 0, "no *.tests.yaml files in this folder")
    if is_tests_file(p):
        return [p]
    if not p.exists():
        return Diagnostic(path, 0, 0, "no such file or folder")
    beside = tests_file_of(p)
    if not beside.is_file() and untested_ok:
        return []
    if not beside.is_file():
        return Diagnostic(path, 0, 0, f"no tests for this game: write {beside.name} beside it",
                          hint="docs/tests.md describes the scenarios of a tests file")
    return [beside]


def run_paths(paths: Sequence[str], extends_roots: Sequence[str] = (),
              untested_ok: bool = False) -> Report:
    """Run the tests files the paths name, each once."""
    report = Report()
    seen: set[Path] = set()
    for path in paths:
        files = tests_files(path, untested_ok)
        if isinstance(files, Diagnostic):
            report.problems.append(files)
            continue
        for f in files:
            if f.resolve() in seen:
                continue
            seen.add(f.resolve())
            try:
                suite = load_suite(f, extends_roots)
                report.outcomes += run_suite(suite, extends_roots=extends_roots)
            except GameFileError as exc:
                report.problems += exc.diagnostics or [Diagnostic(str(f), 1, 1, str(exc))]
                continue
            except RulekitError as exc:
                report.problems.append(Diagnostic(str(f), 1, 1, str(exc)))
                continue
            report.skipped += [(str(f), n, why) for n, why in suite.skipped.items()]
    return report
