"""Reading a tests file: the guarded YAML reader, the tests schema, `extends:` and the
checks of each step, every problem located as `file:line:col`."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rulekit.errors import Diagnostic, GameFileError
from rulekit.scenarios.schema import ACTIONS, CHECKS, validator
from rulekit.spec.load import MAX_EXTENDS, confined_path
from rulekit.spec.schema import schema_diagnostics
from rulekit.spec.source import Path_, Source, read_file

#: what a tests file's name ends with
TESTS_SUFFIXES = (".tests.yaml", ".tests.yml")


@dataclass
class Scenario:
    """One scenario: its name, its mapping, and the file (with positions) it stands in;
    a variant's tests may replace some of its keys, which then stand in the variant's."""

    name: str
    data: dict
    src: Source
    overridden: dict[str, Source] = field(default_factory=dict)  # key -> the file it is from

    @property
    def path(self) -> Path_:
        return ("scenarios", self.name)

    def source(self, rel: Path_) -> Source:
        return self.overridden.get(rel[0], self.src) if rel else self.src

    def diag(self, rel: Path_, message: str, hint: str | None = None) -> Diagnostic:
        """A diagnostic at a node of this scenario (`rel` is the path below it)."""
        return self.source(rel).diag(self.path + tuple(rel), message, hint)

    def merged(self, data: dict, src: Source) -> Scenario:
        """This scenario with the keys a variant's scenario of the same name gives."""
        over = dict(self.overridden) | {k: src for k in data}
        return Scenario(self.name, self.data | data, self.src, over)


@dataclass
class Suite:
    """A tests file with the scenarios of the files it extends, and the game they test."""

    file: str
    game: Path
    scenarios: list[Scenario] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # name -> why


def is_tests_file(path: str | Path) -> bool:
    return str(path).lower().endswith(TESTS_SUFFIXES)


def tests_file_of(game: str | Path) -> Path:
    """`NAME.tests.yaml` beside `NAME.yaml`."""
    p = Path(game)
    stem = p.name[: -len(p.suffix)] if p.suffix else p.name
    return p.with_name(stem + ".tests.yaml")


def load_suite(path: str | Path, extends_roots: Sequence[str | Path] = ()) -> Suite:
    """Read a tests file and those it extends; raises GameFileError with every problem."""
    roots = tuple(Path(os.path.realpath(r)) for r in extends_roots)
    path = Path(path)
    src = _read(path)
    game_ref = src.data.get("game")
    if game_ref is not None:
        game = confined_path(src, path, game_ref, roots, key="game")
    else:
        name = path.name
        stem = next((name[: -len(s)] for s in TESTS_SUFFIXES if name.lower().endswith(s)),
                    path.stem)
        game = path.with_name(stem + ".yaml")
        if not game.is_file():
            raise GameFileError([Diagnostic(str(path), 1, 1, f"no game file {game.name} "
                                            "beside the tests file",
                                            hint="name the game with `game: FILE`")])
    suite = Suite(str(path), game)
    scenarios, skipped = _scenarios(path, src, [], roots)
    suite.scenarios = list(scenarios.values())
    if not suite.scenarios and not skipped:
        raise GameFileError([src.diag((), "the file holds no scenarios",
                                      hint="add `scenarios:`, a mapping of names to scenarios "
                                           "(docs/tests.md)")])
    suite.skipped = skipped
    return suite


def _read(path: Path) -> Source:
    src = read_file(path)
    diags = schema_diagnostics(src, validator())
    scenarios = src.data.get("scenarios") if isinstance(src.data, dict) else None
    for name in scenarios if isinstance(scenarios, dict) else ():
        if not isinstance(name, str):
            diags.append(src.diag(("scenarios", name), f"the scenario name {name!r} is read as "
                                  f"a {type(name).__name__}, not as text",
                                  hint="quote it: 'yes', 'no', 'true' and numbers need quotes "
                                       "to be names", key=True))
    if not diags:
        for name, sc in (src.data.get("scenarios") or {}).items():
            diags += _check_steps(Scenario(str(name), sc, src))
    if diags:
        raise GameFileError(diags)
    return src


def _scenarios(path: Path, src: Source, chain: list[Path],
               roots: tuple) -> tuple[dict[str, Scenario], dict[str, str]]:
    """The scenarios of a file by name, base scenarios first, and those it skips."""
    out: dict[str, Scenario] = {}
    skipped: dict[str, str] = {}
    base_ref = src.data.get("extends")
    if base_ref is not None:
        here = Path(os.path.realpath(path))
        base = confined_path(src, path, base_ref, roots)
        if base in chain + [here]:
            raise GameFileError([src.diag(("extends",), "extends: forms a cycle",
                                          hint="a tests file must not extend its variants")])
        if len(chain) >= MAX_EXTENDS:
            raise GameFileError([src.diag(("extends",), "extends: chain is too long",
                                          hint=f"at most {MAX_EXTENDS} files")])
        out, skipped = _scenarios(base, _read(_shown(base)), chain + [here], roots)
    for name, data in (src.data.get("scenarios") or {}).items():
        name = str(name)
        if "skip" in data:
            if name not in out:
                raise GameFileError([src.diag(("scenarios", name), f"skip: there is no "
                                              f"scenario '{name}' in the base tests",
                                              hint="skip names a scenario of the file this "
                                                   "one extends")])
            del out[name]
            skipped[name] = data["skip"]
            continue
        if name in out:
            out[name] = out[name].merged(data, src)
        elif "steps" not in data:
            raise GameFileError([src.diag(("scenarios", name), "steps is missing (required)",
                                          hint="add `steps:`, a list of chance outcomes, "
                                               "decisions and expectations")])
        else:
            out[name] = Scenario(name, data, src)
    return out, skipped


def _shown(real: Path) -> Path:
    """A base file's path as messages show it: relative to the working folder if inside."""
    rel = os.path.relpath(real)
    return real if rel.startswith("..") else Path(rel)


def _check_steps(sc: Scenario) -> list[Diagnostic]:
    """Each step either acts (one of roll/deal/chance/play) or checks (any checks)."""
    out = []
    for i, step in enumerate(sc.data.get("steps") or []):
        acts = [k for k in ACTIONS if k in step]
        checks = [k for k in CHECKS if k in step]
        if len(acts) > 1 or (acts and checks):
            out.append(sc.diag(("steps", i), f"a step does one thing: {', '.join(acts + checks)} "
                               "belong in separate steps",
                               hint="write `- play: ...` and `- legal: [...]` as two items"))
        elif "seat" in step and (acts != ["play"] or not isinstance(step["play"], (str, int))):
            out.append(sc.diag(("steps", i, "seat"), "seat: goes with play: of one label",
                               hint="to check who decides, write `- decides: SEAT`"))
        elif not acts and not checks:
            out.append(sc.diag(("steps", i), "a step needs an action or an expectation",
                               hint=f"one of: {', '.join(ACTIONS + CHECKS)}"))
    return out
