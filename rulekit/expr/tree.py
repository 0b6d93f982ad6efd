"""The checked tree: what the checker (rulekit.expr.check) knows of each sub-expression,
and what the backends (rulekit.backends) lower.

Every node that is not a constant names its operation (`op`, see `Node.tag`), what it
needs besides its operands (`data`) and its operands (`kids`); a constant holds its value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rulekit.expr.errors import ExprError
from rulekit.expr.types import Type

Fn = Callable[[Any, dict], Any]
Pos = tuple[int, int]  # (line, column), both 1-based


class Node:
    """What the checker knows about one sub-expression, with what the closure and source
    backends made of it (`fn`, `src`).

    `const`: the value is known now (`value`); `local`: the node is just `env[local]`;
    `dyn`: the value depends on the game state (or must not be computed early);
    `free`: local names the value depends on; `err`: an error that computing this constant
    part raised, reported unless the part turns out to be unreachable;
    `chain`: (kind, root, attribute path) for merging `a.b.c` into one attrgetter;
    `iter_fn`: a cheaper closure to use when the value is only iterated over;
    `vf`: (name, f) when the value is just f(value of local `name`) (f None: the value
    itself), which lets a comprehension over `name` run without an env dict.
    """

    __slots__ = ("fn", "type", "pos", "const", "value", "local", "dyn", "free", "err",
                 "iter_fn", "chain", "vf", "src", "iter_src", "reads", "joined", "promise",
                 "guard", "op", "data", "kids")

    def __init__(
        self,
        fn: Fn,
        type_: Type,
        pos: Pos,
        *,
        const: bool = False,
        value: Any = None,
        local: str | None = None,
        dyn: bool = False,
        free: frozenset[str] = frozenset(),
        err: ExprError | None = None,
    ) -> None:
        self.fn = fn
        self.type = type_
        self.pos = pos
        self.const = const
        self.value = value
        self.local = local
        self.dyn = dyn
        self.free = free
        self.err = err
        self.iter_fn: Fn | None = None
        self.chain: tuple[str, Any, tuple[str, ...]] | None = None
        self.vf: tuple[str, Callable[[Any], Any] | None] | None = None
        self.src: str | None = None  # Python source of the value (see rulekit.backends.pysource)
        self.iter_src: str | None = None  # cheaper source when only iterated over
        #: the parts of the game (variables, components) the value depends on; None: unknown
        self.reads: frozenset[str] | None = frozenset()
        #: join(SEP, xs) of whole numbers with a constant SEP: (SEP, the node of xs)
        self.joined: tuple[str, Node] | None = None
        #: what a method promises of the list it returns: (distinct, numbers), see Method
        self.promise: tuple[bool, tuple[int, int] | None] = (False, None)
        #: `xs if c else []` (or `[] if c else xs`): the sources of the test that gives xs
        #: and of xs, so that a loop over it is a test and a loop over xs
        self.guard: tuple[str, str] | None = None
        #: the checked tree, what backends other than the closures lower: the node's
        #: operation (see `tag`), what it needs besides its operands, and the operands
        self.op = "const" if const else "?"
        self.data: Any = value if const else None
        self.kids: tuple[Node, ...] = ()

    def tag(self, op: str, data: Any = None) -> Node:
        """Name the operation of a node that is not a constant: `local` (data: its name),
        `global` (the name and its Global), `attr` (the name), `index`, `method` (the
        name), `call` (the builtin's name and its Gen or None), `list`, `comp` (the
        clauses [(local, list node, [condition nodes])] and the body node), `cond` (a, c,
        b of `a if c else b`), `and`, `or`, `not`, `neg`, `binop` (the operator: arithmetic,
        a comparison, `in`)."""
        if not self.const:
            self.op = op
            self.data = data
        return self


class Gen:
    """A checked generator argument / list comprehension.

    `node` evaluates to the list of values; `lazy` (when not None) returns an iterator so
    that any()/all()/first() can stop early; `count` (when not None) counts the elements
    without computing them; `fast` says `lazy` is a C-level map/filter pipeline, cheaper
    than building the list.
    """

    __slots__ = ("node", "lazy", "count", "fast", "filtered", "clauses", "body_src",
                 "lazy_src", "loops")

    def __init__(self, node: Node, lazy: Fn | None, count: Fn | None, fast: bool = False) -> None:
        self.node = node
        self.lazy = lazy
        self.count = count
        self.fast = fast
        self.filtered = False  # has an `if` clause
        self.clauses: str | None = None  # source of the `for ... if ...` clauses
        self.body_src: str | None = None
        self.lazy_src: str | None = None  # map()/filter() with no Python loop, when possible
        #: the clauses as source, one (local, list, [conditions]) per `for`
        self.loops: list[tuple[str, str, list[str]]] | None = None

    @property
    def gen_src(self) -> str | None:
        """The generator's source, for builtins that consume it lazily."""
        if self.lazy_src is not None:
            return self.lazy_src
        if self.clauses is None or self.body_src is None:
            return None
        return f"({self.body_src} {self.clauses})"
