"""The checker: a parsed expression becomes a typed tree (rulekit.expr.tree).

Each expression is checked once, when a game file is loaded, and all the work that can be
done up front is done here: names are resolved, types are checked, the attributes and
methods a value offers are decided, constant parts are computed (folded), and a mistake
gets its message, hint and column. Each node also gets what the backends make of it
(rulekit.backends): its closure `fn(st, env)`, which folding runs too, and its Python
source where it has one. The checker decides; the backends only build.
"""

from __future__ import annotations

import difflib
import math
import operator
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from lark import Token, Tree

from rulekit.backends import closures as cl
from rulekit.backends import pysource as py
from rulekit.expr import runtime
from rulekit.expr.budget import (
    MAX_INT_BITS,
    WORK_AT_LOAD,
    BudgetExceeded,
    TooSlow,
    limit,
    metered,
)
from rulekit.expr.errors import ExprError
from rulekit.expr.ops import COMPARE
from rulekit.expr.parser import parse
from rulekit.expr.scope import Scope
from rulekit.expr.tree import Fn, Gen, Node, Pos
from rulekit.expr.types import (
    BOOL,
    INT,
    NEVER,
    NONE,
    NUM,
    STR,
    ListT,
    ObjT,
    Type,
    fits,
    is_known,
    is_numeric,
    join,
    type_of_value,
)

# Constant folding must never make loading a game file slow or memory-hungry.
FOLD_LOOP_LIMIT = 10_000
FOLD_MAX_BITS = 100_000


@dataclass(frozen=True, slots=True)
class Compiled:
    """A compiled expression: call `fn(st, env)` to evaluate it."""

    fn: Fn
    type: Type
    source: str
    constant: bool
    #: the value as Python source for generated code, and the constants it names (None:
    #: this expression has no source form and runs as a closure)
    src: str | None = None
    consts: dict[str, Any] | None = None
    #: the parts of the game (variables, components) the value depends on; None: unknown
    reads: frozenset[str] | None = None
    #: a template that is `PREFIX{join(SEP, xs)}SUFFIX` with xs a local list of whole
    #: numbers: (PREFIX, SEP, SUFFIX, Python name of xs); see codegen's labels from keys
    joined: tuple[str, str, str, str] | None = None
    #: a template written as one concatenation, which cannot fail or charge work: its
    #: literals and (value's source, text function, type) of each value (see labels)
    parts: tuple | None = None
    #: the checked tree (a Node: `op`, `data`, `kids`, `type`), for backends that lower it
    node: Any = None


def _constant(value: Any, type_: Type, pos: Pos) -> Node:
    return Node(cl.constant_fn(value), type_, pos, const=True, value=value)


def _describe(ex: BaseException) -> str:
    if isinstance(ex, BudgetExceeded):
        return str(ex)
    if isinstance(ex, ZeroDivisionError):
        return "division by zero"
    if isinstance(ex, KeyError):
        return f"no entry {ex.args[0]!r}" if ex.args else "no such entry"
    if isinstance(ex, IndexError):
        return "index out of range"
    text = str(ex)
    return f"{type(ex).__name__}: {text}" if text else type(ex).__name__


def _make(
    fn: Fn,
    type_: Type,
    pos: Pos,
    kids: list[Node],
    *,
    dyn: bool = False,
    free: set[str] | frozenset[str] | None = None,
) -> Node:
    """A node computed from `kids` by `fn`; folded to a constant when nothing varies."""
    err = None
    names: set[str] = set(free) if free is not None else set()
    for k in kids:
        if k.err is not None and err is None:
            err = k.err
        if k.dyn:
            dyn = True
        if free is None:
            names |= k.free
    fr = frozenset(names)
    if err is not None:
        return Node(fn, type_, pos, dyn=dyn, free=fr, err=err)
    if not dyn and not fr:
        try:
            with limit(WORK_AT_LOAD, "a constant worked out at load"):
                value = fn(None, {})
        except TooSlow as ex:  # the load's deadline passed: not the expression's doing
            bad = ExprError(str(ex), column=pos[1], line=pos[0])
            return Node(fn, type_, pos, dyn=dyn, free=fr, err=bad)
        except Exception as ex:  # a constant part that always fails
            bad = ExprError(f"this always fails: {_describe(ex)}", column=pos[1], line=pos[0])
            return Node(fn, type_, pos, dyn=dyn, free=fr, err=bad)
        return _constant(value, type_, pos)
    node = Node(fn, type_, pos, dyn=dyn, free=fr)
    node.reads = reads_of(kids)
    node.kids = tuple(kids)
    return node


def reads_of(nodes: list[Node]) -> frozenset[str] | None:
    """What a value computed from `nodes` depends on: everything they depend on."""
    out: frozenset[str] = frozenset()
    for n in nodes:
        if n.reads is None:
            return None
        out |= n.reads
    return out


def _pos(x: Tree | Token) -> Pos:
    if isinstance(x, Token):
        return (x.line or 1, x.column or 1)
    meta = x.meta
    return (getattr(meta, "line", 1) or 1, getattr(meta, "column", 1) or 1)


def _suggest(name: str, candidates: list[str]) -> str | None:
    """A close match, or else the names there are (so every unknown name gets a hint)."""
    close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
    if close:
        return f"did you mean '{close[0]}'?"
    known = sorted({c for c in candidates if not c.startswith("_")})
    if not known:
        return None
    more = f" and {len(known) - 12} more" if len(known) > 12 else ""
    return f"known here: {', '.join(known[:12])}{more}"


def _apply(
    func: Callable[..., Any], args: list[Node], type_: Type, pos: Pos, dyn: bool = False
) -> Node:
    """A call of a plain Python function on compiled arguments."""
    return _make(cl.call_fn(func, args), type_, pos, args, dyn=dyn)


def _decode_string(raw: str) -> str:
    body = raw[1:-1]
    if "\\" not in body:
        return body
    out: list[str] = []
    i = 0
    n = len(body)
    while i < n:
        ch = body[i]
        if ch == "\\" and i + 1 < n:
            nxt = body[i + 1]
            out.append(_ESCAPES.get(nxt, "\\" + nxt))
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "0": "\0"}


def _comparable(t: Type) -> bool:
    return is_numeric(t) or t is STR


class _Compiler:
    """Turns one parse tree into a `Node`; one instance per compiled text."""

    def __init__(self) -> None:
        self._dispatch: dict[str, Callable[[Tree, Scope], Node]] = {
            "int": self._int,
            "float": self._float,
            "string": self._string,
            "true": lambda t, s: _constant(True, BOOL, _pos(t)),
            "false": lambda t, s: _constant(False, BOOL, _pos(t)),
            "none": lambda t, s: _constant(None, NONE, _pos(t)),
            "name": self._name,
            "attr": self._attr,
            "index": self._index,
            "call": self._call,
            "list": self._list,
            "listcomp": self._listcomp,
            "cond": self._cond,
            "or_test": self._or,
            "and_test": self._and,
            "not_": self._not,
            "comparison": self._comparison,
            "arith": self._arith_chain,
            "term": self._arith_chain,
            "power": self._arith_chain,
            "unary": self._unary,
        }

    # -- entry -------------------------------------------------------------------------

    def expr(self, tree: Tree, scope: Scope) -> Node:
        handler = self._dispatch.get(str(tree.data))
        if handler is None:  # pragma: no cover - the grammar and this table go together
            raise self._error(f"unsupported expression ({tree.data})", _pos(tree))
        node = handler(tree, scope)
        if node.const:
            node.src = py.const(node.value)
        if not is_known(node.type):
            # Every value has a type the engine declares: only then is it certain that an
            # attribute or method reached from it is one the engine offers.
            raise self._error("the type of this value cannot be known", node.pos,
                              "a value must have one type: a list holds one type of "
                              "element, both sides of 'if ... else' give the same type")
        return node

    @staticmethod
    def _error(message: str, pos: Pos, hint: str | None = None) -> ExprError:
        return ExprError(message, column=pos[1], line=pos[0], hint=hint)

    # -- literals ----------------------------------------------------------------------

    def _int(self, tree: Tree, scope: Scope) -> Node:
        text = str(tree.children[0]).replace("_", "")
        if len(text) > MAX_INT_BITS // 3:  # int() itself refuses 4,300 digits and more
            raise self._error(f"a number of {len(text)} digits: too large", _pos(tree),
                              f"whole numbers have at most {MAX_INT_BITS} bits (about 300 "
                              "digits)")
        return _constant(int(text), INT, _pos(tree))

    def _float(self, tree: Tree, scope: Scope) -> Node:
        return _constant(float(tree.children[0]), NUM, _pos(tree))

    def _string(self, tree: Tree, scope: Scope) -> Node:
        return _constant(_decode_string(str(tree.children[0])), STR, _pos(tree))

    def _list(self, tree: Tree, scope: Scope) -> Node:
        items = [self.expr(c, scope) for c in tree.children]
        elem: Type | None = None
        for it in items:
            new = it.type if elem is None else join(elem, it.type)
            if not is_known(new):
                raise self._error(
                    f"a list holds one type of element, got {elem} and {it.type}", it.pos,
                    "make the elements alike, e.g. all numbers or all strings")
            elem = new
        type_ = ListT(elem if elem is not None else NEVER)
        fn = cl.list_fn([it.fn for it in items])
        depth = _list_depth(type_)
        if depth:  # `[a, a]` of lists: what it holds is counted with multiplicity
            fn = cl.sized_fn(fn, depth)
        node = _make(fn, type_, _pos(tree), items).tag("list")
        node.promise = (len(items) <= 1, None)  # one element or none: no two equal
        node.src = py.list_src(items, 0 if node.const else depth)
        return node

    # -- names -------------------------------------------------------------------------

    def _name(self, tree: Tree, scope: Scope) -> Node:
        tok = tree.children[0]
        name = str(tok)
        pos = _pos(tok)
        if name == "params":
            raise self._error(
                "'params' needs a parameter name after it, like params.target", pos
            )
        local_t = scope.locals.get(name)
        if local_t is not None:
            node = Node(cl.local_fn(name), local_t, pos, local=name,
                        free=frozenset((name,))).tag("local", name)
            node.chain = ("local", name, ())
            node.vf = (name, None)
            node.src = scope.pynames[name]
            node.reads = scope.reads.get(name)
            return node
        glob = scope.globals.get(name)
        if glob is not None:
            get = glob.get
            node = Node(cl.global_fn(get), glob.type, pos, dyn=True).tag("global", (name, glob))
            node.chain = ("global", get, ())
            node.src = py.global_src(glob)
            node.reads = glob.reads
            return node
        raise self._unknown_name(name, pos, scope)

    def _unknown_name(self, name: str, pos: Pos, scope: Scope) -> ExprError:
        if name in scope.params:
            hint: str | None = f"did you mean 'params.{name}'?"
        elif name in BUILTINS:
            hint = f"{name} is a function: call it, like {name}(...)"
        else:
            hint = _suggest(name, scope.names() + ["params"])
        return self._error(f"unknown name '{name}'", pos, hint)

    @staticmethod
    def _is_params(tree: Tree | Token) -> bool:
        return isinstance(tree, Tree) and tree.data == "name" and tree.children[0] == "params"

    def _param(self, name: str, pos: Pos, start: Pos, scope: Scope) -> Node:
        if name not in scope.params:
            raise self._error(
                f"unknown parameter '{name}'", pos, _suggest(name, list(scope.params))
            )
        value = scope.params[name]
        return _constant(value, type_of_value(value), start)

    # -- attributes, indexing ------------------------------------------------------------

    def _attr(self, tree: Tree, scope: Scope) -> Node:
        base_t, name_tok = tree.children
        name = str(name_tok)
        if self._is_params(base_t):
            return self._param(name, _pos(name_tok), _pos(base_t), scope)
        base = self.expr(base_t, scope)
        return self._get_attr(base, name, _pos(name_tok))

    def _get_attr(self, base: Node, name: str, pos: Pos) -> Node:
        t = base.type
        if name.startswith("_"):  # the grammar has no such names; never reach Python's own
            raise self._error(f"no attribute '{name}'", pos)
        if isinstance(t, ObjT):
            attr_t = t.attrs.get(name)
            if attr_t is None:
                if name in t.methods:
                    raise self._error(
                        f"'{name}' is a method of {t.name}: call it, like {name}(...)", pos
                    )
                raise self._error(
                    f"{t.name} has no attribute '{name}'",
                    pos,
                    _suggest(name, list(t.attrs) + list(t.methods)),
                )
        else:
            raise self._error(f"{t.name} has no attribute '{name}'", pos)
        if base.chain is not None:
            kind, root, path = base.chain
        else:
            kind, root, path = "expr", base.fn, ()
        path = path + (name,)
        node = _make(cl.chain_fn(kind, root, path), attr_t, base.pos, [base]).tag("attr", name)
        if not node.const:
            node.chain = (kind, root, path)
            if kind == "local":
                node.vf = (root, operator.attrgetter(".".join(path)))
            node.src = py.attr_src(base, name, t.stored.get(name), t.inline.get(name))
            extra = t.reads.get(name, frozenset())
            node.reads = None if node.reads is None or extra is None else node.reads | extra
            node.promise = (name in t.distinct, None)
        return node

    def _index(self, tree: Tree, scope: Scope) -> Node:
        base_t, key_t = tree.children
        base = self.expr(base_t, scope)
        key = self.expr(key_t, scope)
        bt, kt = base.type, key.type
        if isinstance(bt, ListT) or bt is STR:
            if not fits(kt, INT):
                raise self._error(f"an index into {bt.name} must be an int, got {kt.name}",
                                  key.pos)
            result = bt.elem if isinstance(bt, ListT) else STR
        elif isinstance(bt, ObjT):
            if bt.index is None:
                raise self._error(f"{bt.name} cannot be indexed with [...]", key.pos)
            key_type, result = bt.index
            if not fits(kt, key_type):
                raise self._error(
                    f"{bt.name} is indexed by {key_type.name}, got {kt.name}", key.pos
                )
        else:
            raise self._error(f"{bt.name} cannot be indexed with [...]", key.pos)
        node = _make(cl.index_fn(base, key), result, base.pos, [base, key]).tag("index")
        node.src = py.index_src(base, key)
        return node

    # -- calls -------------------------------------------------------------------------

    def _call(self, tree: Tree, scope: Scope) -> Node:
        func_t, *arg_ts = tree.children
        if isinstance(func_t, Tree) and func_t.data == "attr":
            return self._method_call(func_t, arg_ts, scope)
        if isinstance(func_t, Tree) and func_t.data == "name":
            tok = func_t.children[0]
            name = str(tok)
            pos = _pos(tok)
            handler = _BUILTIN_HANDLERS.get(name)
            if handler is None:
                if name in scope.locals or name in scope.globals:
                    raise self._error(f"'{name}' is not a function", pos)
                raise self._error(f"unknown function '{name}'", pos,
                                  _suggest(name, list(BUILTINS)))
            args, gen = self._args(arg_ts, scope)
            try:
                node = handler(self, name, pos, args, gen)
                if not node.const:
                    node.tag("call", (name, gen))
                    node.kids = tuple(args)
                if node.src is None and not node.const:
                    node.src = py.builtin_src(name, args, gen)
                    if name == "range":
                        node.iter_src = py.range_iter_src(args)
                return node
            except ExprError as exc:
                if exc.hint is None:
                    exc.hint = f"use it as {USAGE.get(name, name + '(...)')}"
                raise
        raise self._error("only built-in functions and methods can be called", _pos(func_t))

    def _args(self, arg_ts: list[Tree], scope: Scope) -> tuple[list[Node], Gen | None]:
        args: list[Node] = []
        gen = None
        for i, a in enumerate(arg_ts):
            if a.data == "genexp":
                if i != len(arg_ts) - 1:
                    raise self._error(
                        "a generator ('... for ... in ...') must be the last argument", _pos(a)
                    )
                gen = self._comprehension(a.children[0], a.children[1], scope, _pos(a))
                args.append(gen.node)
            else:
                args.append(self.expr(a, scope))
        return args, gen

    def _method_call(self, func_t: Tree, arg_ts: list[Tree], scope: Scope) -> Node:
        base_t, name_tok = func_t.children
        name = str(name_tok)
        pos = _pos(name_tok)
        if self._is_params(base_t):
            raise self._error("parameters are values, not functions", pos)
        base = self.expr(base_t, scope)
        t = base.type
        if isinstance(t, ObjT) and not name.startswith("_"):
            method = t.methods.get(name)
            if method is None:
                if name in t.attrs:
                    raise self._error(f"'{name}' is an attribute of {t.name}, not a method", pos)
                raise self._error(
                    f"{t.name} has no method '{name}'",
                    pos,
                    _suggest(name, list(t.methods) + list(t.attrs)),
                )
            usage = f"use it as {name}({', '.join(p.name for p in method.params)})"
            if len(arg_ts) != len(method.params):
                raise self._error(
                    f"{name}() takes {_plural(len(method.params), 'argument')}, "
                    f"got {len(arg_ts)}",
                    pos, usage,
                )
            args, _gen = self._args(arg_ts, scope)
            for i, (arg, want) in enumerate(zip(args, method.params, strict=True), 1):
                if not fits(arg.type, want):
                    raise self._error(
                        f"argument {i} of {name}() must be {want.name}, got {arg.type.name}",
                        arg.pos, usage,
                    )
            result = method.returns
        else:
            raise self._error(f"{t.name} has no method '{name}'", pos)
        # A method may read anything from its object: never computed at load time.
        node = _make(cl.method_fn(name, base, args), result, base.pos, [base, *args],
                     dyn=True).tag("method", name)
        keeps = method.keeps is not None and args[method.keeps].promise[0]
        node.promise = (method.distinct or keeps, method.numbers)
        node.src = py.method_src(base, name, args)
        return node

    # -- comprehensions ----------------------------------------------------------------

    def _listcomp(self, tree: Tree, scope: Scope) -> Node:
        return self._comprehension(tree.children[0], tree.children[1], scope, _pos(tree)).node

    def elem_type(self, node: Node) -> Type:
        """The element type when iterating over `node`; only lists can be iterated."""
        t = node.type
        if isinstance(t, ListT):
            return t.elem
        raise self._error(f"cannot loop over {t.name}: a list is needed", node.pos)

    def _need_bool(self, node: Node, what: str) -> None:
        t = node.type
        if t is not BOOL and t is not NEVER:
            hint = "compare it, like '... > 0'" if is_numeric(t) else None
            raise self._error(f"{what} needs a true/false value, got {t.name}", node.pos, hint)

    def _comprehension(self, body_t: Tree, comp_t: Tree, scope: Scope, pos: Pos) -> Gen:
        levels: list[tuple[str, Node, list[Node]]] = []
        pynames: list[str] = []
        inner = scope
        bound: set[str] = set()
        free: set[str] = set()
        parts: list[Node] = []
        for clause in comp_t.children:
            if clause.data == "comp_for":
                _for, name_tok, _in, iter_t = clause.children
                name = str(name_tok)
                if name == "params":
                    raise self._error("'params' is reserved; pick another name",
                                      _pos(name_tok))
                it = self.expr(iter_t, inner)
                elem = self.elem_type(it)
                free |= it.free - bound
                parts.append(it)
                levels.append((name, it, []))
                bound.add(name)
                inner = inner.with_local(name, elem, it.reads)
                pynames.append(inner.pynames[name])
            else:
                _if, cond_t = clause.children
                cond = self.expr(cond_t, inner)
                self._need_bool(cond, "'if'")
                free |= cond.free - bound
                parts.append(cond)
                levels[-1][2].append(cond)
        body = self.expr(body_t, inner)
        free |= body.free - bound
        parts.append(body)
        type_ = ListT(body.type)

        built = []
        for name, it, conds in levels:
            kept = [c for c in conds if not (c.const and c.value)]
            cond_fn = cl.all_of([c.fn for c in kept]) if kept else None
            built.append((name, metered(it.iter_fn or it.fn), cond_fn))

        fast = False
        fast_src = None
        if len(built) == 1:
            name, itf, cond_fn = built[0]
            kept = [c for c in levels[0][2] if not (c.const and c.value)]
            plan = cl.loop_var_plan(name, body, kept)
            if plan is not None:
                fast = True
                values, lazy, count = cl.fast_single(itf, body, *plan)
                it = levels[0][1]
                if py.builtin_only(*plan):
                    fast_src = py.fast_src(it.iter_src or it.src, body, *plan)
            else:
                values = cl.single_values(name, itf, cond_fn, body)
                lazy = cl.single_lazy(name, itf, cond_fn, body)
                count = cl.single_count(name, itf, cond_fn)
        else:
            values = cl.nested_values(built, body)
            lazy = cl.nested_lazy(built, body)
            count = None

        depth = _list_depth(type_)
        if depth:  # lists of lists: what they hold is counted with multiplicity
            values = cl.sized_fn(values, depth)
        dyn = any(p.dyn for p in parts)
        foldable = not dyn and not free and all(it.const for _n, it, _c in levels)
        if foldable:
            total = 1
            for _n, it, _c in levels:
                try:
                    total *= len(it.value)
                except TypeError:
                    total = FOLD_LOOP_LIMIT + 1
            foldable = total <= FOLD_LOOP_LIMIT
        node = _make(values, type_, pos, parts, dyn=not foldable, free=free)
        node.tag("comp", (levels, body))
        gen = Gen(node, None, None) if node.const else Gen(node, lazy, count, fast)
        gen.filtered = any(conds for _n, _it, conds in levels)
        if not node.const:
            node.src = py.comprehension_src(gen, levels, pynames, body, fast_src, depth)
        return gen

    # -- conditionals and booleans -----------------------------------------------------

    def _cond(self, tree: Tree, scope: Scope) -> Node:
        a_t, _if, c_t, _else, b_t = tree.children
        a = self.expr(a_t, scope)
        c = self.expr(c_t, scope)
        b = self.expr(b_t, scope)
        self._need_bool(c, "'if'")
        type_ = join(a.type, b.type)
        if not is_known(type_):
            raise self._error(f"'if ... else' gives {a.type} or {b.type}: one type is needed",
                              a.pos, "make both sides alike, e.g. both numbers")
        if c.const:
            return a if c.value else b
        node = _make(cl.cond_fn(a, c, b), type_, a.pos, [a, c, b]).tag("cond")
        node.src = py.cond_src(a, c, b)
        if node.src is not None:
            if _empty_list(b):
                node.guard = py.guard_src(c, a, False)
                node.promise = (a.promise[0], None)
            elif _empty_list(a):
                node.guard = py.guard_src(c, b, True)
                node.promise = (b.promise[0], None)
        return node

    def _or(self, tree: Tree, scope: Scope) -> Node:
        return self._boolop(tree, scope, is_and=False)

    def _and(self, tree: Tree, scope: Scope) -> Node:
        return self._boolop(tree, scope, is_and=True)

    def _boolop(self, tree: Tree, scope: Scope, is_and: bool) -> Node:
        word = "'and'" if is_and else "'or'"
        nodes = [self.expr(c, scope) for c in tree.children if isinstance(c, Tree)]
        for n in nodes:
            self._need_bool(n, word)
        pos = nodes[0].pos
        kept: list[Node] = []
        for n in nodes:
            if n.const:
                if bool(n.value) == is_and:  # `true and x` is x, `false or x` is x
                    continue
                if not kept:  # `false and ...` / `true or ...`
                    return _constant(not is_and, BOOL, pos)
                kept.append(n)
                break  # whatever follows can never be evaluated
            kept.append(n)
        if not kept:
            return _constant(is_and, BOOL, pos)
        fns = [n.fn if n.type is BOOL else cl.to_bool(n.fn) for n in kept]
        fn = cl.all_of(fns) if is_and else cl.any_of(fns)
        node = _make(fn, BOOL, pos, kept).tag("and" if is_and else "or")
        if not node.const and node.err is None:
            node.vf = cl.boolop_vf(kept, is_and)
        node.src = py.boolop_src(kept, is_and)
        return node

    def _not(self, tree: Tree, scope: Scope) -> Node:
        not_tok, operand_t = tree.children
        a = self.expr(operand_t, scope)
        self._need_bool(a, "'not'")
        node = _make(cl.not_fn(a), BOOL, _pos(not_tok), [a]).tag("not")
        if not node.const and a.vf is not None:
            node.vf = cl.not_vf(a.vf)
        node.src = py.not_src(a)
        return node

    # -- comparisons -------------------------------------------------------------------

    def _comparison(self, tree: Tree, scope: Scope) -> Node:
        operands: list[Node] = []
        ops: list[tuple[str, Pos]] = []
        for child in tree.children:
            if child.data == "comp_op":
                toks = child.children
                ops.append((" ".join(str(t) for t in toks), _pos(toks[0])))
            else:
                operands.append(self.expr(child, scope))
        for i, (op, pos) in enumerate(ops):
            self._check_compare(op, operands[i], operands[i + 1], pos)
        pos = operands[0].pos
        if len(operands) == 2:
            return _binary_node(ops[0][0], operands[0], operands[1], BOOL, pos)
        checked = [_checked_op(op, operands[i], operands[i + 1], BOOL)
                   for i, (op, _p) in enumerate(ops)]
        cmps = [c or COMPARE[op] for c, (op, _p) in zip(checked, ops)]
        node = _make(cl.compare_chain_fn(operands, cmps), BOOL, pos, operands).tag(
            "compare", [op for op, _p in ops])
        if not any(checked):
            node.src = py.compare_src(operands, [op for op, _p in ops])
        return node

    def _check_compare(self, op: str, left: Node, right: Node, pos: Pos) -> None:
        lt, rt = left.type, right.type
        if op in ("==", "!="):
            return
        if op in ("in", "not in"):
            if isinstance(rt, ListT):
                if fits(lt, rt.elem) or fits(rt.elem, lt):
                    return
                raise self._error(
                    f"'{op}' looks for {lt.name} in {rt.name}: the types do not match", pos
                )
            if rt is STR:
                if lt is STR or lt is NEVER:
                    return
                raise self._error(f"'{op}' on a str needs a str on the left, got {lt.name}",
                                  pos)
            if isinstance(rt, ObjT) and rt.index is not None:
                key = rt.index[0]
                if fits(lt, key) or fits(key, lt):
                    return
                raise self._error(
                    f"'{op}' looks for {lt.name} in {rt.name}, which is indexed by {key.name}",
                    pos,
                )
            raise self._error(
                f"'{op}' needs a list, a str or an indexed object on the right, got {rt.name}",
                pos,
            )
        if is_numeric(lt) and is_numeric(rt):
            return
        if (lt is STR or lt is NEVER) and (rt is STR or rt is NEVER):
            return
        raise self._error(
            f"'{op}' needs two numbers or two strings, got {lt.name} and {rt.name}", pos
        )

    # -- arithmetic --------------------------------------------------------------------

    def _arith_chain(self, tree: Tree, scope: Scope) -> Node:
        children = tree.children
        node = self.expr(children[0], scope)
        for i in range(1, len(children), 2):
            op_tok = children[i]
            right = self.expr(children[i + 1], scope)
            node = self._arith(str(op_tok), _pos(op_tok), node, right)
        return node

    def _arith(self, op: str, pos: Pos, left: Node, right: Node) -> Node:
        type_ = self._arith_type(op, left, right, pos)
        if op == "**" and left.const and right.const:
            base, exp = left.value, right.value
            if (
                isinstance(base, int)
                and isinstance(exp, int)
                and exp > 0
                and abs(base) > 1
                and base.bit_length() * exp > FOLD_MAX_BITS
            ):
                raise self._error("this number is too large", pos)
        return _binary_node(op, left, right, type_, left.pos)

    def _arith_type(self, op: str, left: Node, right: Node, pos: Pos) -> Type:
        lt, rt = left.type, right.type
        if lt is NEVER:  # an element of an empty list: never computed, typed like the other
            lt = rt
        elif rt is NEVER:
            rt = lt
        if op == "+":
            if is_numeric(lt) and is_numeric(rt):
                return INT if lt is INT and rt is INT else NUM
            if lt is STR and rt is STR:
                return STR
            if isinstance(lt, ListT) and isinstance(rt, ListT):
                joined = ListT(join(lt.elem, rt.elem))
                if not is_known(joined):
                    raise self._error(f"'+' joins lists of one type of element, got {lt.name} "
                                      f"and {rt.name}", pos)
                return joined
            hint = None
            if STR in (lt, rt) and (is_numeric(lt) or is_numeric(rt)):
                hint = "use str(...) to turn a number into text"
            elif isinstance(lt, ListT) and not isinstance(rt, ListT):
                hint = "to add one element to a list, write xs + [x]"
            raise self._error(f"'+' needs numbers, got {lt.name} and {rt.name}", pos, hint)
        for t in (lt, rt):
            if not is_numeric(t):
                raise self._error(f"'{op}' needs numbers, got {lt.name} and {rt.name}", pos)
        if op == "/":
            return NUM
        if lt is INT and rt is INT:
            if op != "**":
                return INT
            if right.const and right.value >= 0:
                return INT
        return NUM

    def _unary(self, tree: Tree, scope: Scope) -> Node:
        op_tok, operand_t = tree.children
        a = self.expr(operand_t, scope)
        op = str(op_tok)
        if not is_numeric(a.type):
            raise self._error(f"unary '{op}' needs a number, got {a.type.name}", _pos(op_tok))
        if op == "+":
            return a
        node = _make(cl.neg_fn(a), a.type, _pos(op_tok), [a]).tag("neg")
        node.src = py.neg_src(a)
        return node


def _empty_list(node: Node) -> bool:
    return node.const and node.value.__class__ is list and not node.value


def _binary_node(op: str, left: Node, right: Node, type_: Type, pos: Pos) -> Node:
    checked = _checked_op(op, left, right, type_)
    if checked is not None:  # the cost or size of the result grows with the operands
        node = _make(cl.call_fn(checked, [left, right]), type_, pos, [left, right]).tag("binop", op)
        node.src = py.call(checked, left.src, right.src)
        return node
    node = _make(cl.binary_fn(op, left, right), type_, pos, [left, right]).tag("binop", op)
    if not node.const and node.err is None:
        node.vf = cl.binary_vf(op, left, right)
    node.src = py.binary_src(op, left, right)
    return node


def _checked_op(op: str, left: Node, right: Node, type_: Type) -> Callable[[Any, Any], Any] | None:
    """The budget-keeping function for `+` on strings or lists, and for comparisons and `in`
    whose cost grows with texts or lists (chosen by the operands' types: numbers compare
    at no extra charge)."""
    if op == "+":
        if type_ is STR:
            return runtime.concat_str
        if isinstance(type_, ListT):
            return runtime.concat_sized(_list_depth(type_))
        return None
    if op in ("in", "not in"):
        rt = right.type
        if isinstance(rt, ListT):
            if _short_const(right):  # a few numbers or texts: a scan bounded by the file
                return None
            depth = _list_depth(rt)
            if depth:
                return runtime.list_contains(depth, op == "not in")
            if rt.elem is STR and not _short_const(left):
                return runtime.text_list_contains(op == "not in")
            return runtime.contains if op == "in" else runtime.not_contains
        if rt is STR and not (right.const and len(right.value) <= SHORT_TEXT):
            return runtime.TEXT_COMPARE[op]
        return None
    if op in runtime.TEXT_COMPARE and not (_short_const(left) or _short_const(right)):
        lt, rt = left.type, right.type
        if lt is STR and rt is STR:
            return runtime.TEXT_COMPARE[op]
        if isinstance(lt, ListT) and isinstance(rt, ListT):
            depth = max(_list_depth(lt), _list_depth(rt))
            return runtime.list_compare(op, depth, not depth and STR in (lt.elem, rt.elem))
    return None


#: constant texts this short are compared or scanned at no extra charge
SHORT_TEXT = 64
#: a constant list this short is scanned by `in` without charging its length
SHORT_LIST = 64


def _short_const(node: Node) -> bool:
    """A constant that bounds what a comparison with it may read (a short text or list)."""
    if not node.const:
        return False
    v = node.value
    if v.__class__ is str:
        return len(v) <= SHORT_TEXT
    if v.__class__ is list:  # (a list of lists may hold a million elements)
        return len(v) <= SHORT_LIST and all(x.__class__ is not list for x in v)
    return True


def _list_depth(t: Type) -> int:
    """How many levels of lists a list's elements hold: 0 for list[int], 1 for
    list[list[int]]."""
    depth = 0
    t = t.elem if isinstance(t, ListT) else t
    while isinstance(t, ListT):
        depth += 1
        t = t.elem
    return depth


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# -- built-in functions ----------------------------------------------------------------
# Each handler checks arity and argument types, then builds the call closure.

_Handler = Callable[[_Compiler, str, Pos, list[Node], Gen | None], Node]


def _arity(c: _Compiler, name: str, pos: Pos, args: list[Node], lo: int, hi: int) -> None:
    n = len(args)
    if lo <= n <= hi:
        return
    if lo == hi:
        want = _plural(lo, "argument")
    else:
        want = f"{lo} to {hi} arguments"
    raise c._error(f"{name}() takes {want}, got {n}", pos)


def _over(func: Callable[[Any], Any], args: list[Node], gen: Gen | None, type_: Type,
          pos: Pos) -> Node:
    """func(xs) for a one-argument builtin; streams a fast generator instead of a list."""
    if gen is not None and gen.fast and gen.lazy is not None:
        return _make(cl.of_lazy(func, gen.lazy), type_, pos, args)
    return _apply(cl.scanning(func), args, type_, pos)


def _list_arg(c: _Compiler, name: str, arg: Node, what: str = "a list") -> Type:
    """Element type of a list argument."""
    t = arg.type
    if isinstance(t, ListT):
        return t.elem
    raise c._error(f"{name}() needs {what}, got {t.name}", arg.pos)


def _b_sum(c: _Compiler, name: str, pos: Pos, args: list[Node], gen: Gen | None) -> Node:
    _arity(c, name, pos, args, 1, 1)
    elem = _list_arg(c, name, args[0], "a list of numbers")
    if elem is INT or elem is NUM or elem is NEVER:
        result = INT if elem is NEVER else elem
    else:
        hint = "count(x for x in xs if x) counts the true ones" if elem is BOOL else None
        raise c._error(f"sum() needs a list of numbers, got list[{elem.name}]", args[0].pos,
                       hint)
    return _over(sum, args, gen, result, pos)


def _b_count(c: _Compiler, name: str, pos: Pos, args: list[Node], gen: Gen | None) -> Node:
    _arity(c, name, pos, args, 1, 1)
    arg = args[0]
    elem = _list_arg(c, name, arg)
    if gen is not None and elem is BOOL and not gen.filtered:
        # count(t.double for t in hand) would count every tile, not the doubles.
        raise c._error(
            "count() counts elements, but this generator gives true/false values",
            arg.pos,
            "to count the ones that pass a test, filter with if: "
            "count(t for t in xs if t.double)",
        )
    if gen is not None and gen.count is not None:
        return _make(gen.count, INT, pos, [arg])
    return _apply(runtime.length, args, INT, pos)


def _b_len(c: _Compiler, name: str, pos: Pos, args: list[Node], gen: Gen | None) -> Node:
    _arity(c, name, pos, args, 1, 1)
    arg = args[0]
    t = arg.type
    if gen is not None and gen.count is not None:
        return _make(gen.count, INT, pos, [arg])
    if not (isinstance(t, ListT) or t is STR
            or (isinstance(t, ObjT) and t.index is not None)):
        raise c._error(f"len() needs a list or a str, got {t.name}", arg.pos)
    return _apply(len, args, INT, pos)


def _b_range(c: _Compiler, name: str, pos: Pos, args: list[Node], gen: Gen | None) -> Node:
    _arity(c, name, pos, args, 1, 3)
    for a in args:
        if not fits(a.type, INT):
            raise c._error(f"range() needs int arguments, got {a.type.name}", a.pos)
    too_big = False
    if all(a.const for a in args):
        try:
            size = len(range(*[a.value for a in args]))
        except (TypeError, ValueError, OverflowError):
            size = 0  # folding reports the problem
        if size > runtime.MAX_RANGE:
            raise c._error(f"range() of {size} numbers: at most {runtime.MAX_RANGE} are "
                           "allowed", pos, "a game needs far fewer; is an argument wrong?")
        too_big = size > FOLD_LOOP_LIMIT
    node = _apply(runtime.range_list, args, ListT(INT), pos, dyn=too_big)
    if not node.const:
        # Loops only iterate: they can use the range object and skip building a list.
        node.iter_fn = cl.call_fn(runtime.range_iter, args)
    return node


def _b_minmax(c: _Compiler, name: str, pos: Pos, args: list[Node], gen: Gen | None) -> Node:
    func = min if name == "min" else max
    if not args:
        raise c._error(f"{name}() needs a list or at least 2 values", pos)
    if len(args) == 1:
        arg = args[0]
        if not isinstance(arg.type, ListT):
            raise c._error(f"{name}() of one value needs a list, got {arg.type.name}", arg.pos)
        elem = _list_arg(c, name, arg)
        if not _comparable(elem):
            raise c._error(f"{name}() needs numbers or strings, got {arg.type.name}", arg.pos)
        if elem is STR and gen is None:
            return _text_scan(func, False, args, elem, pos)
        return _over(func, args, gen, elem, pos)
    result: Type | None = None
    for a in args:
        if not _comparable(a.type):
            raise c._error(f"{name}() needs numbers or strings, got {a.type.name}", a.pos)
        result = a.type if result is None else join(result, a.type)
    assert result is not None
    if not is_known(result):
        raise c._error(f"{name}() cannot compare numbers with strings", pos)
    return _apply(func, args, result, pos)


def _b_anyall(c: _Compiler, name: str, pos: Pos, args: list[Node], gen: Gen | None) -> Node:
    _arity(c, name, pos, args, 1, 1)
    arg = args[0]
    elem = _list_arg(c, name, arg, "a list of true/false values")
    if elem is not BOOL and elem is not NEVER:
        raise c._error(f"{name}() needs a list of true/false values, got {arg.type.name}",
                       arg.pos)
    func = any if name == "any" else all
    if gen is not None and gen.lazy is not None:
        return _stopping(cl.of_lazy(func, gen.lazy), BOOL, pos, arg)
    return _apply(cl.scanning(func), args, BOOL, pos)


def _stopping(fn: Fn, type_: Type, pos: Pos, arg: Node) -> Node:
    """`fn` of a generator that stops at the element that decides (any, all, first).
    A constant generator whose whole list fails (a later element divides by zero) is
    folded as `fn` runs at play: only the elements it reads count."""
    if arg.err is None or arg.dyn or arg.free:
        return _make(fn, type_, pos, [arg])
    try:
        with limit(WORK_AT_LOAD, "a constant worked out at load"):
            value = fn(None, {})
    except Exception:  # an element it reads fails too
        return Node(fn, type_, pos, err=arg.err)
    return _constant(value, type_, pos)


def _b_sorted(c: _Compiler, name: str, pos: Pos, args: list[Node], gen: Gen | None) -> Node:
    _arity(c, name, pos, args, 1, 1)
    arg = args[0]
    elem = _list_arg(c, name, arg)
    if not _comparable(elem):
        raise c._error(f"sorted() needs a list of numbers or strings, got {arg.type.name}",
                       arg.pos)
    if elem is STR and gen is None:
        return _text_scan(sorted, True, args, ListT(elem), pos)
    return _over(sorted, args, gen, ListT(elem), pos)


def _text_scan(func: Callable[[Any], Any], sorting: bool, args: list[Node], type_: Type,
               pos: Pos) -> Node:
    """func(texts) charged by the characters its comparisons may read (runtime.text_scan)."""
    scan = runtime.text_scan(func, sorting)
    node = _apply(scan, args, type_, pos)
    if not node.const:
        node.src = py.call(scan, args[0].src)
    return node


def _b_reversed(c: _Compiler, name: str, pos: Pos, args: list[Node], gen: Gen | None) -> Node:
    _arity(c, name, pos, args, 1, 1)
    elem = _list_arg(c, name, args[0])
    return _apply(cl.scanning(runtime.reversed_list), args, ListT(elem), pos)


def _b_abs(c: _Compiler, name: str, pos: Pos, args: list[Node], gen: Gen | None) -> Node:
    _arity(c, name, pos, args, 1, 1)
    t = args[0].type
    if not is_numeric(t):
        raise c._error(f"abs() needs a number, got {t.name}", args[0].pos)
    return _apply(abs, args, t, pos)


def _b_floorceil(c: _Compiler, name: str, pos: Pos, args: list[Node], gen: Gen | None) -> Node:
    _arity(c, name, pos, args, 1, 1)
    t = args[0].type
    if not is_numeric(t):
        raise c._error(f"{name}() needs a number, got {t.name}", args[0].pos)
    return _apply(math.floor if name == "floor" else math.ceil, args, INT, pos)


def _b_join(c: _Compiler, name: str, pos: Pos, args: list[Node], gen: Gen | None) -> Node:
    _arity(c, name, pos, args, 2, 2)
    sep, xs = args
    if not fits(sep.type, STR):
        raise c._error(f"join() needs a str separator first, got {sep.type.name}", sep.pos)
    _list_arg(c, name, xs, "a list second")
    need_text(xs.type, xs.pos, "join()")
    node = _apply(cl.joiner(xs), args, STR, pos)
    if sep.const and isinstance(sep.value, str) and isinstance(xs.type, ListT) \
            and xs.type.elem is INT:
        node.joined = (sep.value, xs)
    return node


def _b_str(c: _Compiler, name: str, pos: Pos, args: list[Node], gen: Gen | None) -> Node:
    _arity(c, name, pos, args, 1, 1)
    if args[0].type is STR:
        return args[0]
    need_text(args[0].type, args[0].pos, "str()")
    return _apply(runtime.render, args, STR, pos)


def need_text(t: Type, pos: Pos, where: str) -> None:
    """Refuse a value (or list of values) whose type has no text of its own: its Python
    representation would carry a heap address into the game's text and log."""
    while isinstance(t, ListT):
        t = t.elem
    if isinstance(t, ObjT) and not t.printable:
        raise ExprError(f"{where} cannot write a {t.name}: it has no text of its own",
                        column=pos[1], line=pos[0],
                        hint=f"write one of its values instead, such as an attribute "
                             f"({', '.join(sorted(t.attrs)[:4]) or 'none'})")


def _b_first(c: _Compiler, name: str, pos: Pos, args: list[Node], gen: Gen | None) -> Node:
    _arity(c, name, pos, args, 1, 1)
    arg = args[0]
    elem = _list_arg(c, name, arg)
    if gen is not None and gen.lazy is not None:
        return _stopping(cl.first_of_lazy(gen.lazy), elem, pos, arg)
    return _apply(runtime.first, args, elem, pos)


_BUILTIN_HANDLERS: dict[str, _Handler] = {
    "sum": _b_sum,
    "count": _b_count,
    "len": _b_len,
    "range": _b_range,
    "min": _b_minmax,
    "max": _b_minmax,
    "any": _b_anyall,
    "all": _b_anyall,
    "sorted": _b_sorted,
    "reversed": _b_reversed,
    "abs": _b_abs,
    "floor": _b_floorceil,
    "ceil": _b_floorceil,
    "join": _b_join,
    "str": _b_str,
    "first": _b_first,
}
BUILTINS = tuple(sorted(_BUILTIN_HANDLERS))

#: how each built-in is called, for the hint of an error in a call
USAGE = {
    "sum": "sum(xs) or sum(x.n for x in xs)",
    "count": "count(xs) or count(x for x in xs if x.n > 0)",
    "len": "len(xs), len(text)",
    "range": "range(stop), range(start, stop) or range(start, stop, step), with ints",
    "min": "min(xs) or min(a, b, ...), of numbers or of strings",
    "max": "max(xs) or max(a, b, ...), of numbers or of strings",
    "any": "any(xs) or any(x.n > 0 for x in xs)",
    "all": "all(xs) or all(x.n > 0 for x in xs)",
    "sorted": "sorted(xs), of numbers or of strings",
    "reversed": "reversed(xs)",
    "abs": "abs(n)",
    "floor": "floor(n)",
    "ceil": "ceil(n)",
    "join": "join(', ', xs)",
    "str": "str(n)",
    "first": "first(xs) or first(x for x in xs if x.n > 0)",
}


# -- public entry points ---------------------------------------------------------------


def compile_node(text: str, scope: Scope, consts: dict[str, Any]) -> Node:
    """Parse and compile `text`; the constants its source names are added to `consts`."""
    tree = parse(text)
    with py.collecting(consts):
        return _Compiler().expr(tree, scope)


def _guarded(what: Callable[[], Any]) -> Any:
    """Run a compile step so that only ExprError ever escapes it."""
    try:
        return what()
    except ExprError:
        raise
    except RecursionError:
        raise ExprError("expression is nested too deeply") from None
    except Exception as ex:  # never let an internal failure reach the game author raw
        raise ExprError(f"cannot compile this expression ({_describe(ex)})") from ex


def compile_expr(text: str, scope: Scope, expect: Type | None = None) -> Compiled:
    """Compile one expression; `expect` (e.g. BOOL for conditions) checks its result type."""

    def run() -> Compiled:
        consts: dict[str, Any] = {}
        node = compile_node(text, scope, consts)
        if node.err is not None:
            raise node.err
        if expect is not None and not fits(node.type, expect):
            if expect is BOOL and is_numeric(node.type):
                hint = "compare it, like '... > 0'"
            elif is_numeric(expect) and node.type is STR:
                hint = "this place needs a number; text is written in quotes only when meant"
            else:
                hint = f"this place needs a value of the type {expect.name}"
            raise ExprError(
                f"expected {expect.name}, got {node.type.name}",
                column=node.pos[1], line=node.pos[0], hint=hint,
            )
        src = node.src
        if node.const and isinstance(node.value, list):
            with py.collecting(consts):
                src = py.call(list, src)  # a copy, as the closure hands out
        fn = cl.result_fn(node)
        if src is not None and not node.const:
            fn = py.function(src, consts, [scope.pynames[n] for n in sorted(node.free)],
                             sorted(node.free)) or fn
        return Compiled(fn, node.type, text, node.const, src, consts, node.reads, node=node)

    return _guarded(run)


def compile_bindings(
    text: str, scope: Scope
) -> tuple[Callable[[Any, dict], Iterator[dict]], Scope]:
    """Compile `NAME in EXPR, NAME in EXPR, ...` into an iterator over environments.

    `iterate(st, env)` yields one new dict per combination (cartesian, in order): env plus
    the bound names. Later clauses may use names bound by earlier ones.
    """

    def run() -> tuple[Callable[[Any, dict], Iterator[dict]], Scope]:
        tree = parse(text, "bindings")
        compiler = _Compiler()
        inner = scope
        clauses: list[tuple[str, Fn]] = []
        srcs: list[tuple[str, str, str | None]] = []
        promises: list[tuple[bool, tuple[int, int] | None]] = []
        nodes: list[tuple[str, Node]] = []
        guards: list[tuple[str, str] | None] = []
        consts: dict[str, Any] = {}
        reads: frozenset[str] | None = frozenset()  # what the lists looped over depend on
        seen: set[str] = set()
        for binding in tree.children:
            name_tok, _in, expr_t = binding.children
            name = str(name_tok)
            pos = _pos(name_tok)
            if name in seen:
                raise ExprError(f"'{name}' is bound twice", column=pos[1], line=pos[0])
            if name == "params":
                raise ExprError("'params' is reserved; pick another name",
                                column=pos[1], line=pos[0])
            seen.add(name)
            with py.collecting(consts):
                node = compiler.expr(expr_t, inner)
            if node.err is not None:
                raise node.err
            elem = compiler.elem_type(node)
            nodes.append((name, node))
            clauses.append((name, metered(node.iter_fn or node.fn)))
            reads = None if reads is None or node.reads is None else reads | node.reads
            inner = inner.with_local(name, elem, node.reads)
            srcs.append((name, inner.pynames[name], node.iter_src or node.src))
            promises.append(node.promise)
            guards.append(node.guard)
        iterate = cl.bindings_iterator(clauses)
        # for generated code: each clause's name, Python local and iterable's source
        iterate.srcs = tuple(srcs)  # type: ignore[attr-defined]
        # what each clause's list is promised to be (see Method)
        iterate.promises = tuple(promises)  # type: ignore[attr-defined]
        # clauses over `xs if c else []`: (c, xs) as source (see Node.guard)
        iterate.guards = tuple(guards)  # type: ignore[attr-defined]
        iterate.consts = consts  # type: ignore[attr-defined]
        iterate.nodes = tuple(nodes)  # type: ignore[attr-defined]  # each clause's tree
        iterate.reads = reads  # type: ignore[attr-defined]
        return iterate, inner

    return _guarded(run)


