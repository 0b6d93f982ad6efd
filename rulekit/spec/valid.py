"""Whether a document conforms to the game schema, without importing jsonschema.

Loading a game asks the schema first; for a valid file the answer is "no problems", and
jsonschema (a tenth of a second to import, more than the rest of a small study) is
needed only to explain problems. `conforms` answers the question alone, with the same
semantics as jsonschema's Draft 2020-12 validator for the keywords the game schema uses
(the same type checks, `equal`, `re.search`, the same gates on the instance's type):
True when jsonschema would find nothing, False when it would find something, and None
when it cannot tell (a keyword it does not know, a value it does not handle, a document
too deep): the caller then asks jsonschema, so the messages are always jsonschema's.
`tests/test_schema_fast.py` holds it to jsonschema's verdict on the shipped files and on
thousands of broken ones.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

Check = Callable[[Any], bool]

#: keywords that only annotate (they never make a document invalid)
_ANNOTATIONS = frozenset({"description", "title", "default", "$schema", "$id", "$comment",
                          "examples", "deprecated", "readOnly", "writeOnly"})


class _Unsure(Exception):
    """The schema or the document holds something this module does not decide."""


def _is_integer(x: Any) -> bool:
    if isinstance(x, bool):
        return False
    return isinstance(x, int) or (isinstance(x, float) and x.is_integer())


def _is_number(x: Any) -> bool:
    return not isinstance(x, bool) and isinstance(x, numbers.Number)


#: jsonschema's Draft 2020-12 type checker
_TYPES: dict[str, Check] = {
    "array": lambda x: isinstance(x, list),
    "boolean": lambda x: isinstance(x, bool),
    "integer": _is_integer,
    "null": lambda x: x is None,
    "number": _is_number,
    "object": lambda x: isinstance(x, dict),
    "string": lambda x: isinstance(x, str),
}
_is_object, _is_array, _is_string = _TYPES["object"], _TYPES["array"], _TYPES["string"]


def _unbool(x: Any, true: object = object(), false: object = object()) -> Any:
    if x is True:
        return true
    if x is False:
        return false
    return x


def equal(one: Any, two: Any) -> bool:
    """jsonschema's `equal` (True is not 1, recursing into lists and mappings)."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return bool(one == two)
    if isinstance(one, Sequence) and isinstance(two, Sequence):
        return len(one) == len(two) and all(equal(i, j) for i, j in zip(one, two))
    if isinstance(one, Mapping) and isinstance(two, Mapping):
        return len(one) == len(two) and all(k in two and equal(v, two[k])
                                            for k, v in one.items())
    return bool(_unbool(one) == _unbool(two))


class _Compiler:
    def __init__(self, root: dict) -> None:
        self.root = root
        self.refs: dict[str, Check] = {}

    def ref(self, ref: str) -> Check:
        if not ref.startswith("#/"):
            raise _Unsure(ref)
        if ref not in self.refs:
            target: Any = self.root
            for part in ref[2:].split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            self.refs[ref] = lambda x: False  # replaced below; a cycle calls through `refs`
            self.refs[ref] = self.compile(target)
        refs = self.refs
        return lambda x: refs[ref](x)

    def compile(self, schema: Any) -> Check:
        if schema is True:
            return lambda x: True
        if schema is False:
            return lambda x: False
        if not isinstance(schema, dict):
            raise _Unsure(schema)
        checks = [self.keyword(k, v, schema) for k, v in schema.items()
                  if k not in _ANNOTATIONS and k not in ("then", "else")]
        checks = [c for c in checks if c is not None]
        if len(checks) == 1:
            return checks[0]
        return lambda x: all(c(x) for c in checks)

    def keyword(self, key: str, value: Any, schema: dict) -> Check | None:
        make = getattr(self, "k_" + key.lstrip("$"), None)
        if make is None:
            raise _Unsure(key)
        return make(value, schema)

    def k_type(self, types: Any, schema: dict) -> Check:
        fns = [_TYPES[t] for t in (types if isinstance(types, list) else [types])]
        return lambda x: any(f(x) for f in fns)

    def k_ref(self, ref: str, schema: dict) -> Check:
        return self.ref(ref)

    def k_properties(self, props: dict, schema: dict) -> Check:
        checks = [(name, self.compile(sub)) for name, sub in props.items()]

        def check(x: Any) -> bool:
            if not _is_object(x):
                return True
            return all(c(x[name]) for name, c in checks if name in x)
        return check

    def k_additionalProperties(self, extra: Any, schema: dict) -> Check:
        if "patternProperties" in schema:
            raise _Unsure("patternProperties")
        known = schema.get("properties", {})
        if _is_object(extra):
            sub = self.compile(extra)
            return lambda x: not _is_object(x) or all(sub(v) for k, v in x.items()
                                                      if k not in known)
        if extra:
            return lambda x: True
        return lambda x: not _is_object(x) or all(k in known for k in x)

    def k_propertyNames(self, names: Any, schema: dict) -> Check:
        sub = self.compile(names)
        return lambda x: not _is_object(x) or all(sub(k) for k in x)

    def k_required(self, required: list, schema: dict) -> Check:
        return lambda x: not _is_object(x) or all(k in x for k in required)

    def k_minProperties(self, n: int, schema: dict) -> Check:
        return lambda x: not _is_object(x) or len(x) >= n

    def k_maxProperties(self, n: int, schema: dict) -> Check:
        return lambda x: not _is_object(x) or len(x) <= n

    def k_items(self, items: Any, schema: dict) -> Check:
        if "prefixItems" in schema:
            raise _Unsure("prefixItems")
        sub = self.compile(items)
        return lambda x: not _is_array(x) or all(sub(v) for v in x)

    def k_minItems(self, n: int, schema: dict) -> Check:
        return lambda x: not _is_array(x) or len(x) >= n

    def k_maxItems(self, n: int, schema: dict) -> Check:
        return lambda x: not _is_array(x) or len(x) <= n

    def k_minLength(self, n: int, schema: dict) -> Check:
        return lambda x: not _is_string(x) or len(x) >= n

    def k_maxLength(self, n: int, schema: dict) -> Check:
        return lambda x: not _is_string(x) or len(x) <= n

    def k_pattern(self, pattern: str, schema: dict) -> Check:
        return lambda x: not _is_string(x) or re.search(pattern, x) is not None

    def k_minimum(self, least: Any, schema: dict) -> Check:
        return lambda x: not _is_number(x) or not x < least

    def k_maximum(self, most: Any, schema: dict) -> Check:
        return lambda x: not _is_number(x) or not x > most

    def k_enum(self, values: list, schema: dict) -> Check:
        return lambda x: any(equal(v, x) for v in values)

    def k_const(self, value: Any, schema: dict) -> Check:
        return lambda x: equal(x, value)

    def k_anyOf(self, subs: list, schema: dict) -> Check:
        checks = [self.compile(s) for s in subs]
        return lambda x: any(c(x) for c in checks)

    def k_allOf(self, subs: list, schema: dict) -> Check:
        checks = [self.compile(s) for s in subs]
        return lambda x: all(c(x) for c in checks)

    def k_if(self, cond: Any, schema: dict) -> Check | None:
        test = self.compile(cond)
        then = self.compile(schema["then"]) if "then" in schema else None
        other = self.compile(schema["else"]) if "else" in schema else None
        if then is None and other is None:
            return None

        def check(x: Any) -> bool:
            if test(x):
                return then is None or then(x)
            return other is None or other(x)
        return check

    def k_defs(self, defs: dict, schema: dict) -> None:
        return None  # reached through $ref only


def compile_schema(schema: dict) -> Check | None:
    """The schema as a check of documents, or None if it uses what this module does not
    decide (then every document goes to jsonschema)."""
    try:
        return _Compiler(schema).compile(schema)
    except (_Unsure, KeyError, TypeError):
        return None


def conforms(check: Check | None, document: Any) -> bool | None:
    """Whether `document` passes `check` (see `compile_schema`); None: ask jsonschema."""
    if check is None:
        return None
    try:
        return check(document)
    except Exception:  # a value compared or matched in a way jsonschema may see otherwise
        return None
