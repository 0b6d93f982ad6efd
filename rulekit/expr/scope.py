"""What names an expression may use, and how each is found at run time."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from rulekit.expr.types import Type

#: Python names of locals in generated source: the compiler's own, never a name from a file
_PYNAMES = (f"v{i}" for i in itertools.count())


class Global:
    """A name whose value is read from the game state: `get(st)` is called on every use.

    `src`, when given, is the same read as Python source over `st` (for generated code);
    it is the engine's own text, never a name from a game file. `reads` names the parts of
    the game (variables, components) its value depends on; None: it cannot be told.
    """

    __slots__ = ("type", "get", "src", "reads", "var")

    def __init__(self, type: Type, get: Callable[[Any], Any], src: str | None = None,
                 reads: frozenset[str] | None = None, var: str | None = None) -> None:
        self.type = type
        self.get = get
        self.src = src
        self.reads = reads
        #: the name of the game variable it reads (`st.gvars[var]`), which generated code
        #: reads inline, the name as a constant
        self.var = var

    def __repr__(self) -> str:
        return f"Global({self.type.name})"


class Scope:
    """The names visible to an expression while it is compiled.

    - `params`: game parameters; `params.NAME` is replaced by its value at compile time.
    - `globals`: names read from the state object passed to the compiled function.
    - `locals`: names read from the `env` dict passed to the compiled function.
    Locals shadow globals.
    """

    __slots__ = ("params", "globals", "locals", "pynames", "reads")

    def __init__(
        self,
        params: dict[str, Any] | None = None,
        globals: dict[str, Global] | None = None,
        locals: dict[str, Type] | None = None,
    ) -> None:
        self.params: dict[str, Any] = dict(params) if params else {}
        self.globals: dict[str, Global] = dict(globals) if globals else {}
        self.locals: dict[str, Type] = dict(locals) if locals else {}
        self.pynames: dict[str, str] = {name: next(_PYNAMES) for name in self.locals}
        #: what each local's value depends on (absent: cannot be told)
        self.reads: dict[str, frozenset[str] | None] = {}

    def with_locals(self, **types: Type) -> Scope:
        """A new scope with more (or overriding) local names; this one is left unchanged."""
        new = Scope.__new__(Scope)
        new.params = self.params
        new.globals = self.globals
        new.locals = {**self.locals, **types}
        new.pynames = {**self.pynames, **{name: next(_PYNAMES) for name in types}}
        new.reads = {k: v for k, v in self.reads.items() if k not in types}
        return new

    def with_local(self, name: str, type: Type, reads: frozenset[str] | None) -> Scope:
        """with_locals for one name whose value depends on `reads` only (a loop variable
        over a list read from those parts, or a player, which depends on nothing)."""
        new = self.with_locals(**{name: type})
        if reads is not None:
            new.reads[name] = reads
        return new

    def names(self) -> list[str]:
        """Every plain name visible here, for did-you-mean suggestions."""
        return sorted(set(self.locals) | set(self.globals))

    def __repr__(self) -> str:
        return (
            f"Scope(params={sorted(self.params)}, globals={sorted(self.globals)}, "
            f"locals={sorted(self.locals)})"
        )
