"""Options told apart without writing their labels.

A decision merges options of equal labels, so random play would write the label of every
option only to compare them. Where a label is a one-to-one function of values that are
cheaper to compare, options are merged by those values (a key) and only the label of the
move played is written (for the log):

- `PREFIX{join(SEP, xs)}SUFFIX`, xs whole numbers, where SEP has a character no number
  has: the key is the numbers (`keyed_label`);
- `L0{p1}L1{p2}...Lk` of whole numbers, truth values, strings and objects that keep
  their text (a tile's `name`), where every literal between two parts has a character
  at its edge that the part beside it cannot write: the key is the parts' values
  (`label_forms`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from rulekit.expr import Compiled, runtime
from rulekit.expr.budget import MAX_STR
from rulekit.expr.types import BOOL, INT, STR, ObjT, Type

#: join() of more parts than this charges the work budget (runtime.join_ints)
JOIN_PARTS = 64


def keyed_label(label: Compiled, pass_label: Any) -> tuple[tuple[str, str, str], str, int] | None:
    """How the options of a label `PREFIX{join(SEP, xs)}SUFFIX` (xs whole numbers) can be
    told apart without writing their labels: ((PREFIX, SEP, SUFFIX), xs's source, digits),
    or None when they cannot.

    The label is a function of the numbers, and one to one when SEP has a character no
    number has (the first such character in the text ends the first number, and so on).
    So options merge by their numbers exactly as by their labels, provided the label
    cannot be the pass label either. At run time an option is keyed only when its label
    would have at most `JOIN_PARTS` numbers of at most `digits` digits: then writing it
    could not have failed or charged work, and writing it later changes nothing.
    """
    if label.joined is None:
        return None
    prefix, sep, suffix, xs = label.joined
    if all(ch in "-0123456789" for ch in sep):
        return None
    digits = min(18, MAX_STR // JOIN_PARTS - 1 - len(sep))
    if digits < 1:
        return None
    number = r"-?[0-9]+"
    text = (re.escape(prefix) + f"(?:{number}(?:{re.escape(sep)}{number})*)?"
            + re.escape(suffix))
    if isinstance(pass_label, str) and re.fullmatch(text, pass_label):
        return None
    return (prefix, sep, suffix), xs, digits


def label_of(form: tuple[str, str, str]) -> Callable[[tuple[int, ...]], str]:
    """The label of a keyed option from its numbers, as KeyedAction writes it."""
    prefix, sep, suffix = form
    # written for the log of every move played, from the few short keys a game has: kept
    known: dict[tuple[int, ...], str] = {}

    def label(key: tuple[int, ...] | list[int]) -> str:
        if len(key) > _KNOWN_PARTS:
            return prefix + sep.join(map(str, key)) + suffix
        key = tuple(key)
        text = known.get(key)
        if text is None:
            if len(known) >= _KNOWN_LABELS:
                known.clear()
            text = known[key] = prefix + sep.join(map(str, key)) + suffix
        return text

    return label


#: the labels `label_of` keeps per option: of at most so many numbers, so many of them
_KNOWN_PARTS, _KNOWN_LABELS = 8, 1024

_DIGITS = frozenset("-0123456789")
_TRUTH = frozenset("truefals")


class LabelForm:
    """A label `L0{p1}L1{p2}...Lk` that is a one-to-one function of its parts' keys.

    `keys`: each part's key as source (its value, or the text an object keeps);
    `renders`: each key's text as the label writes it; `alphabets`: the characters each
    part can write (None: any); `texts`: whether each key is its text already (a string,
    or the text an object keeps); `values`: each part's value as source; `tag`: the number
    that starts the key when a decision has other forms of as many parts but another
    shape, whose keys could be equal where their labels never are; `shared`: another
    option of the decision has this shape, so its keys may be this one's.
    """

    __slots__ = ("literals", "keys", "renders", "alphabets", "texts", "values", "shape",
                 "tag", "shared")

    def __init__(self, literals: list[str], keys: list[str],
                 renders: list[Callable[[Any], str]], alphabets: list[frozenset[str] | None],
                 texts: list[bool], values: list[str]) -> None:
        self.literals = literals
        self.keys = keys
        self.renders = renders
        self.alphabets = alphabets
        self.texts = texts
        self.values = values
        # two options of one shape give equal keys exactly when they give equal labels
        self.shape = (tuple(literals), tuple(renders), tuple(alphabets))
        self.tag: int | None = None
        self.shared = False

    def key_src(self) -> str:
        """The key as a tuple, in Python source."""
        keys = self.keys if self.tag is None else [str(self.tag), *self.keys]
        return "(" + "".join(f"{k}, " for k in keys) + ")"

    def pattern(self) -> str:
        """A regular expression every label of the form matches (and more)."""
        out = [re.escape(self.literals[0])]
        for alphabet, literal in zip(self.alphabets, self.literals[1:]):
            out.append(".*" if alphabet is None
                       else "[" + "".join(re.escape(ch) for ch in sorted(alphabet)) + "]*")
            out.append(re.escape(literal))
        return "".join(out)

    def alphabet(self) -> frozenset[str] | None:
        """Every character a label of the form can have (None: any)."""
        if any(a is None for a in self.alphabets):
            return None
        chars = set("".join(self.literals))
        for a in self.alphabets:
            chars |= a  # type: ignore[arg-type]
        return frozenset(chars)

    def label_src(self, key: str, const: Callable[[Any], str]) -> str:
        """The label of the key named `key`, as Python source (constants by `const`): what
        the generated turns log for the move played, without a call."""
        at = 0 if self.tag is None else 1
        out = [const(self.literals[0])] if self.literals[0] else []
        for i, (render, literal) in enumerate(zip(self.renders, self.literals[1:])):
            part = f"{key}[{at + i}]"
            out.append(part if self.texts[i] else f"{const(render)}({part})")
            if literal:
                out.append(const(literal))
        return "(" + " + ".join(out) + ")" if out else const("")

    def label(self) -> Callable[[tuple], str]:
        """The label of a key, as the label's template writes it."""
        head = self.literals[0]
        pairs = tuple(zip(self.renders, self.literals[1:]))
        at = 0 if self.tag is None else 1
        if not pairs:
            return lambda key: head
        if len(pairs) == 1:
            (r1, t1), = pairs
            return lambda key: head + r1(key[at]) + t1
        if len(pairs) == 2:
            (r1, t1), (r2, t2) = pairs
            return lambda key: head + r1(key[at]) + t1 + r2(key[at + 1]) + t2
        return lambda key: head + "".join([r(k) + t for (r, t), k in zip(pairs, key[at:])])


def _part(src: str, type_: Type
          ) -> tuple[str, Callable[[Any], str], frozenset[str] | None, bool] | None:
    """A label part's key (source), its text, its alphabet and whether the key is the
    text; None when the part's value does not give its text one to one (a fraction: 2.0
    and 2 write alike)."""
    if type_ is INT:
        return src, str, _DIGITS, False
    if type_ is STR:
        return src, str, None, True
    if type_ is BOOL:
        return src, runtime.render, _TRUTH, False
    if isinstance(type_, ObjT) and type_.text is not None:
        attr, alphabet = type_.text
        return f"({src}).{attr}", str, frozenset(alphabet) if alphabet else None, True
    return None


def label_form(label: Compiled) -> LabelForm | None:
    """The label as a form whose keys tell its options apart, or None.

    One to one: with the first and last literals taken off, each part left of the one
    part that may write any character ends where the literal after it starts (that
    literal's first character is one the part cannot write), each part right of it starts
    where the literal before it ends; the part between is what is left.
    """
    if label.parts is None:
        return None
    literals = [""]
    keys: list[str] = []
    renders: list[Callable[[Any], str]] = []
    alphabets: list[frozenset[str] | None] = []
    texts: list[bool] = []
    values: list[str] = []
    for piece in label.parts:
        if isinstance(piece, str):
            literals[-1] += piece
            continue
        part = _part(piece[0], piece[2])
        if part is None:
            return None
        keys.append(part[0])
        renders.append(part[1])
        alphabets.append(part[2])
        texts.append(part[3])
        values.append(piece[0])
        literals.append("")
    n = len(keys)
    if n == 0:  # a label without parts is a constant: as cheap to compare as any key
        return None
    anything = [i for i, a in enumerate(alphabets) if a is None]
    if len(anything) > 1:
        return None
    middle = anything[0] if anything else n
    for i in range(n):
        if i < middle and i + 1 < n:  # read from the left: ends at the next literal
            after = literals[i + 1]
            if not after or after[0] in alphabets[i]:  # type: ignore[operator]
                return None
        if i > middle:  # read from the right: starts after the literal before it
            before = literals[i]
            if not before or before[-1] in alphabets[i]:  # type: ignore[operator]
                return None
    return LabelForm(literals, keys, renders, alphabets, texts, values)


def label_forms(labels: list[Compiled], pass_label: Any) -> list[LabelForm] | None:
    """The forms of a decision's option labels, when every option can be keyed: each
    label is a form, no label can be the pass label, and two options' labels either
    have the same shape (equal keys, equal labels) or can never be equal."""
    forms = [label_form(label) for label in labels]
    if not forms or any(f is None for f in forms):
        return None
    for f in forms:
        if isinstance(pass_label, str) and re.fullmatch(f.pattern(), pass_label,  # type: ignore[union-attr]
                                                        re.S):
            return None
    for i, a in enumerate(forms):
        for b in forms[i + 1:]:
            if a.shape != b.shape and not _disjoint(a, b):  # type: ignore[union-attr]
                return None
    # keys of different lengths are never equal: a tag only where shapes share a length
    shapes: dict[tuple, int] = {}
    for f in forms:
        shapes.setdefault(f.shape, len(shapes))  # type: ignore[union-attr]
    lengths = [len(shape[2]) for shape in shapes]
    for f in forms:
        if lengths.count(len(f.keys)) > 1:  # type: ignore[union-attr]
            f.tag = shapes[f.shape]  # type: ignore[union-attr]
        f.shared = sum(g.shape == f.shape for g in forms) > 1  # type: ignore[union-attr]
    return forms  # type: ignore[return-value]


def distinct_keys(form: LabelForm, loops: list[str], promises: tuple) -> bool:
    """Whether the records of one option have keys no other record of the decision has,
    so that none need be looked up: every list the option loops over is promised to hold
    no two equal elements (nor two of one text), every loop's local is a part of the label
    (whose key tells its values apart), and no other option has the label's shape."""
    return (not form.shared and len(promises) == len(loops)
            and all(p[0] for p in promises) and set(loops) <= set(form.values))


def _disjoint(a: LabelForm, b: LabelForm) -> bool:
    """Whether no label of `a` can be one of `b`: one has a literal character the other
    can never write, or their first (or last) literals differ where both are fixed."""
    for x, y in ((a, b), (b, a)):
        chars = x.alphabet()
        if chars is not None and any(ch not in chars for ch in "".join(y.literals)):
            return True
    pa, pb = a.literals[0], b.literals[0]
    sa, sb = a.literals[-1], b.literals[-1]
    return not (pa.startswith(pb) or pb.startswith(pa)) or not (
        sa.endswith(sb) or sb.endswith(sa))
