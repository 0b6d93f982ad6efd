"""The rulekit expression language.

Game files hold expressions (conditions, scores, labels). Each is parsed and checked once,
when the file is loaded (`check.py`, into the typed tree of `tree.py`), and lowered by the
backends (rulekit.backends) into a plain closure `fn(st, env)` and, where it can be, Python
source, which the engine calls while a game runs; nothing is parsed or evaluated from text
during play.
"""

from rulekit.expr.check import Compiled, compile_bindings, compile_expr
from rulekit.expr.errors import ExprError
from rulekit.expr.scope import Global, Scope
from rulekit.expr.template import compile_template
from rulekit.expr.types import ANY, BOOL, INT, NONE, NUM, STR, ListT, Method, ObjT, Type

__all__ = [
    "ANY",
    "BOOL",
    "INT",
    "NONE",
    "NUM",
    "STR",
    "Compiled",
    "ExprError",
    "Global",
    "ListT",
    "Method",
    "ObjT",
    "Scope",
    "Type",
    "compile_bindings",
    "compile_expr",
    "compile_template",
]
