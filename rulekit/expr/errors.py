"""The one error the expression language raises at load time."""

from __future__ import annotations

from rulekit.errors import RulekitError


class ExprError(RulekitError):
    """A compile-time problem in an expression.

    It carries a position inside the expression text (not the game file) so that the
    caller, which knows where the text sits in the file, can report `file:line:col`.
    """

    message: str
    column: int
    line: int
    hint: str | None

    def __init__(
        self, message: str, column: int = 1, line: int = 1, hint: str | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.column = column
        self.line = line
        self.hint = hint

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return (
            f"ExprError({self.message!r}, column={self.column}, line={self.line}, "
            f"hint={self.hint!r})"
        )
