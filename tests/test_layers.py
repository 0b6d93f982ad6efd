"""The layers of the package import only downwards: the expression language knows
neither the building blocks nor the engine, and the building blocks do not know the
engine (the engine hands them what they use, such as its builder, through interfaces
declared on their side: rulekit/components/base.py).

The imports are read from the source with `ast`, so that an import inside a function or
under `if TYPE_CHECKING:` counts too: it is a dependency of the layer all the same.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "rulekit"

#: a layer -> the layers it must not import, directly or through other modules
FORBIDDEN = {
    "rulekit.expr": ("rulekit.components", "rulekit.engine"),
    "rulekit.components": ("rulekit.engine",),
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"
            or isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_of(source: str, module: str, is_package: bool = False,
               known: frozenset[str] | set[str] = frozenset()) -> list[tuple[str, bool]]:
    """The modules `module` imports: (name, only under `if TYPE_CHECKING:`), in order.

    Relative imports are resolved; `from a import b` names `a.b` when that is a module
    (in `known`), else `a`. `importlib.import_module("...")` with a constant counts too.
    """
    package = module if is_package else module.rpartition(".")[0]
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, typing_only: bool) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                visit(child, True)
            for child in node.orelse:
                visit(child, typing_only)
            return
        if isinstance(node, ast.Import):
            found.extend((alias.name, typing_only) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.append((sub if sub in known else target, typing_only))
        elif (isinstance(node, ast.Call) and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module"
                   or isinstance(node.func, ast.Name)
                   and node.func.id in ("import_module", "__import__"))):
            found.append((node.args[0].value, typing_only))
        for child in ast.iter_child_nodes(node):
            visit(child, typing_only)

    visit(ast.parse(source), False)
    return found


def in_layer(module: str, layer: str) -> bool:
    return module == layer or module.startswith(layer + ".")


@pytest.fixture(scope="module")
def graph() -> dict[str, list[tuple[str, bool]]]:
    mods = all_modules()
    known = set(mods)
    return {m: [(t, tc) for t, tc in imports_of(p.read_text(encoding="utf-8"), m,
                                              p.name == "__init__.py", known)
                if in_layer(t, "rulekit")]
            for m, p in mods.items()}


def test_the_scan_sees_the_imports(graph):
    # a scan that found nothing would pass every check below
    assert ("rulekit.components", False) in graph["rulekit.engine.build"]
    assert any(in_layer(t, "rulekit.engine") and tc for t, tc in graph["rulekit"])
    assert all(in_layer(m, "rulekit") for m in graph) and len(graph) > 50


@pytest.mark.parametrize("source", [
    "import rulekit.engine.steps",
    "from rulekit.engine.steps import MAX_INT",
    "from rulekit import engine",
    "from ..engine.build import Builder",
    "from .. import engine",
    "if TYPE_CHECKING:\n    from rulekit.engine.build import Builder",
    "def f():\n    from rulekit.engine import state\n",
    "import importlib\nimportlib.import_module('rulekit.engine.state')",
])
def test_the_scan_finds_every_form_of_import(source):
    known = {"rulekit.engine", "rulekit.engine.steps", "rulekit.engine.build",
             "rulekit.engine.state"}
    found = imports_of(source, "rulekit.components.dice", known=known)
    assert any(in_layer(t, "rulekit.engine") for t, _ in found), found


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_a_layer_imports_no_layer_above_it(graph, layer):
    bad = [f"{m} imports {t}" + (" (under TYPE_CHECKING)" if tc else "")
           for m, edges in graph.items() if in_layer(m, layer)
           for t, tc in edges if any(in_layer(t, f) for f in FORBIDDEN[layer])]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_nor_through_other_modules(graph, layer):
    # what importing the layer runs: imports that execute (not those for type checkers
    # only), followed from module to module
    def runs(m: str) -> list[str]:
        return [t for t, tc in graph.get(m, []) if not tc]

    via: dict[str, str] = {}
    todo = [m for m in graph if in_layer(m, layer)]
    seen = set(todo)
    while todo:
        m = todo.pop()
        for t in runs(m):
            if t not in seen:
                seen.add(t)
                via[t] = m
                todo.append(t)
    bad = []
    for m in sorted(seen):
        if any(in_layer(m, f) for f in FORBIDDEN[layer]):
            chain = [m]
            while chain[-1] in via:
                chain.append(via[chain[-1]])
            bad.append(" <- ".join(chain))
    assert not bad, "\n".join(bad)
