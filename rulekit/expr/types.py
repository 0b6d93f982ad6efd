"""Static types of expression values.

Types exist only at load time: they let a game file's mistakes surface when the file is
loaded rather than in the middle of a game. They are also what keeps a game file inside
the engine: an attribute or method is reachable only when a type declares it, so every
value an expression handles must have a known type. `ANY` is never the type of a value:
it only says "any type is accepted here" in an expected position (an effect argument).
`NEVER` is the element type of a list known to be empty: such elements do not exist, so
they fit every type but have no attributes.
"""

from __future__ import annotations


class Type:
    """Base of all expression types; `name` is what error messages print."""

    __slots__ = ()

    @property
    def name(self) -> str:
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.name

    def __str__(self) -> str:
        return self.name


class _Prim(Type):
    """A built-in scalar type; one instance each, compared by identity."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    def __reduce__(self) -> str:
        # Pickling/copying keeps the singletons singletons.
        return _PRIM_NAMES[self._name]


INT = _Prim("int")
NUM = _Prim("number")
BOOL = _Prim("bool")
STR = _Prim("str")
NONE = _Prim("none")
ANY = _Prim("any")
NEVER = _Prim("nothing")

_PRIM_NAMES = {"int": "INT", "number": "NUM", "bool": "BOOL", "str": "STR", "none": "NONE",
               "any": "ANY", "nothing": "NEVER"}


class ListT(Type):
    """A list whose elements all have type `elem`; lists are never mutated by expressions."""

    __slots__ = ("elem",)

    def __init__(self, elem: Type) -> None:
        self.elem = elem

    @property
    def name(self) -> str:
        return f"list[{self.elem.name}]"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ListT) and self.elem == other.elem

    def __hash__(self) -> int:
        return hash(("list", self.elem))


class Method:
    """The signature of a method an object type offers to expressions.

    What a method may promise of the list it returns, which generated option loops rely on:
    `distinct`, it never holds two equal elements, nor two that write the same text;
    `keeps=i`, it is a part of its argument i, so distinct when that is; `numbers=(n, d)`,
    each element is a list of at most n whole numbers of at most d digits.
    """

    __slots__ = ("params", "returns", "distinct", "keeps", "numbers")

    def __init__(self, params: list[Type], returns: Type, distinct: bool = False,
                 numbers: tuple[int, int] | None = None, keeps: int | None = None) -> None:
        self.params = list(params)
        self.returns = returns
        self.distinct = distinct
        self.keeps = keeps
        self.numbers = numbers

    def __repr__(self) -> str:
        args = ", ".join(p.name for p in self.params)
        return f"Method(({args}) -> {self.returns.name})"


class ObjT(Type):
    """An engine object (a player, a sheet row, ...) with typed attributes and methods.

    `attrs` and `methods` are plain dicts that may be filled after construction, so that
    recursive types can refer to each other; the compiler reads them only when it needs them.
    `index=(key, value)` makes `obj[key]` legal. `reads` says, for attributes that read
    parts of the game other than the object itself (a player's variables and components),
    which parts (None: cannot be told), so that checks run only when those change.
    """

    __slots__ = ("_name", "attrs", "methods", "index", "reads", "stored", "text", "inline",
                 "distinct", "printable")

    def __init__(
        self,
        name: str,
        attrs: dict[str, Type] | None = None,
        methods: dict[str, Method] | None = None,
        index: tuple[Type, Type] | None = None,
    ) -> None:
        self._name = name
        self.attrs: dict[str, Type] = attrs if attrs is not None else {}
        self.methods: dict[str, Method] = methods if methods is not None else {}
        self.index = index
        self.reads: dict[str, frozenset[str] | None] = {}
        #: attributes held in a dict of the object (a player's variables, in `vars`): the
        #: name of that dict, so generated code reads `obj.vars[name]` without a property
        self.stored: dict[str, str] = {}
        #: (attribute, alphabet): objects whose text (`str(obj)`, as a label writes it)
        #: that attribute holds, written with those characters ("": any); options labelled
        #: by such objects are told apart by it (see rulekit.engine.labels)
        self.text: tuple[str, str] | None = None
        #: attributes that generated code reads as this source rather than by a call of
        #: a property: `{0}` is the object, `{len}` (and `{list}`, `{min}`, `{sum}`) the
        #: builtin
        self.inline: dict[str, str] = {}
        #: list attributes that never hold two equal elements, nor two that write the
        #: same text (a hand's tiles), as a method may promise (see Method)
        self.distinct: frozenset[str] = frozenset()
        #: whether its objects have a text of their own (a name, "player 1"), which str(),
        #: templates and join() may write; the others are refused when the game loads,
        #: so that no Python representation (a heap address) reaches a game's text
        self.printable = False

    @property
    def name(self) -> str:
        return self._name


NUMERIC = (INT, NUM)


def fits(actual: Type, expected: Type) -> bool:
    """Whether a value of type `actual` may be used where `expected` is required."""
    if actual is expected or expected is ANY or actual is ANY or actual is NEVER:
        return True
    if expected is NUM:
        return actual is INT
    if isinstance(expected, ListT):
        return isinstance(actual, ListT) and fits(actual.elem, expected.elem)
    if isinstance(expected, ObjT):
        return isinstance(actual, ObjT) and actual.name == expected.name
    return False


def join(a: Type, b: Type) -> Type:
    """The narrowest type covering both `a` and `b`, or ANY when they have nothing in common
    (the compiler refuses such a value)."""
    if a is ANY or b is ANY:
        return ANY
    if a is NEVER or a is NONE:  # `none` stands for a missing value of the other type
        return b
    if b is NEVER or b is NONE:
        return a
    if fits(a, b):
        return b
    if fits(b, a):
        return a
    if isinstance(a, ListT) and isinstance(b, ListT):
        return ListT(join(a.elem, b.elem))
    return ANY


def is_numeric(t: Type) -> bool:
    """INT or NUM, or an element of an empty list (BOOL deliberately is not a number here)."""
    return t is INT or t is NUM or t is NEVER


def is_known(t: Type) -> bool:
    """Whether values of type `t` are fully described: no ANY anywhere in it."""
    while isinstance(t, ListT):
        t = t.elem
    return t is not ANY


def type_of_value(value: object) -> Type:
    """The type of a constant (a literal or a game parameter)."""
    if value is None:
        return NONE
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return INT
    if isinstance(value, float):
        return NUM
    if isinstance(value, str):
        return STR
    if isinstance(value, (list, tuple)):
        elem: Type | None = None
        for item in value:
            t = type_of_value(item)
            elem = t if elem is None else join(elem, t)
        return ListT(elem if elem is not None else NEVER)
    return ANY


__all__ = [
    "ANY", "BOOL", "INT", "NEVER", "NONE", "NUM", "STR", "ListT", "Method", "ObjT", "Type",
    "fits", "is_known", "is_numeric", "join", "type_of_value",
]
