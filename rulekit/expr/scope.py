"""What names an expression may use, and how each is found at run time."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rulekit.expr.types import Type


class Global:
    """A name whose value is read from the game state: `get(st)` is called on every use."""

    __slots__ = ("type", "get")

    def __init__(self, type: Type, get: Callable[[Any], Any]) -> None:
        self.type = type
        self.get = get

    def __repr__(self) -> str:
        return f"Global({self.type.name})"


class Scope:
    """The names visible to an expression while it is compiled.

    - `params`: game parameters; `params.NAME` is replaced by its value at compile time.
    - `globals`: names read from the state object passed to the compiled function.
    - `locals`: names read from the `env` dict passed to the compiled function.
    Locals shadow globals.
    """

    __slots__ = ("params", "globals", "locals")

    def __init__(
        self,
        params: dict[str, Any] | None = None,
        globals: dict[str, Global] | None = None,
        locals: dict[str, Type] | None = None,
    ) -> None:
        self.params: dict[str, Any] = dict(params) if params else {}
        self.globals: dict[str, Global] = dict(globals) if globals else {}
        self.locals: dict[str, Type] = dict(locals) if locals else {}

    def with_locals(self, **types: Type) -> Scope:
        """A new scope with more (or overriding) local names; this one is left unchanged."""
        new = Scope.__new__(Scope)
        new.params = self.params
        new.globals = self.globals
        new.locals = {**self.locals, **types}
        return new

    def names(self) -> list[str]:
        """Every plain name visible here, for did-you-mean suggestions."""
        return sorted(set(self.locals) | set(self.globals))

    def __repr__(self) -> str:
        return (
            f"Scope(params={sorted(self.params)}, globals={sorted(self.globals)}, "
            f"locals={sorted(self.locals)})"
        )
