"""The import graph keeps the layering of docs/architecture.md.

Dependencies point one way: ``evaltrans.corpora`` ← ``judging`` ← ``metrics``, every app may
import ``metrics.core``, and ``metrics.core`` imports no app and no Django. No two project
modules import each other, directly or through others. The graph is read from the source with
``ast`` (imports inside functions count: a lazy import that hides a cycle is still a cycle; only
``if TYPE_CHECKING:`` blocks are skipped, since they never run).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("evaltrans", "judging", "metrics")

# The project's top: configuration that wires every app together may import anything.
TOP = (
    "evaltrans.urls",
    "evaltrans.settings",
    "evaltrans.celery",
    "evaltrans.wsgi",
    "evaltrans.asgi",
)
# Layers, lowest first; a module may import its own layer and the layers below it.
LAYERS = (
    ("metrics.core",),
    ("evaltrans",),  # shared page helpers: roles, plotting, spreadsheets, context processors
    ("evaltrans.corpora",),
    ("judging",),
    ("metrics",),
)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _project_modules() -> dict[str, Path]:
    modules = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" not in path.parts:
                modules[_module_name(path)] = path
    return modules


MODULES = _project_modules()


def _runtime_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node except those under ``if TYPE_CHECKING:``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from (n for child in node.orelse for n in [child, *_runtime_nodes(child)])
            continue
        yield node
        yield from _runtime_nodes(node)


def _resolve(name: str) -> str | None:
    """The project module ``name`` refers to (a module, or the package of an attribute)."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def imports_of(module: str) -> set[str]:
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            names = [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            target = _resolve(name)
            if target is not None and target != module:
                found.add(target)
            elif target is None and name.split(".")[0] == "django":
                found.add("django")
    return found


GRAPH = {module: imports_of(module) for module in MODULES}


def _layer(module: str) -> int | None:
    if module.startswith(TOP):
        return None
    best = None
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if module == prefix or module.startswith(prefix + "."):
                if best is None or len(prefix) > best[1]:
                    best = (index, len(prefix))
    return None if best is None else best[0]


def test_the_graph_is_read() -> None:
    # A parser that found nothing would pass every rule below.
    assert "metrics.core.base" in GRAPH["metrics.core.bleu"]
    assert any(target.startswith("evaltrans.corpora") for target in GRAPH["metrics.models"])


def test_metrics_core_imports_no_app_and_no_django() -> None:
    offenders = {
        module: sorted(t for t in targets if t == "django" or not t.startswith("metrics.core"))
        for module, targets in GRAPH.items()
        if module.startswith("metrics.core")
    }
    assert {module: bad for module, bad in offenders.items() if bad} == {}


def test_no_app_imports_one_above_it() -> None:
    upward = []
    for module, targets in GRAPH.items():
        own = _layer(module)
        if own is None:
            continue
        for target in targets - {"django"}:
            other = _layer(target)
            if other is not None and other > own:
                upward.append(f"{module} -> {target}")
    assert upward == []


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative (the graph has hundreds of modules)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root] & graph.keys())))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child] & graph.keys()))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def test_no_module_cycle() -> None:
    cycles = [c for c in _strongly_connected(GRAPH) if len(c) > 1]
    assert cycles == []


@pytest.mark.parametrize(
    "graph, expected",
    [
        ({"a": {"b"}, "b": {"a"}, "c": set()}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, [["a", "b", "c"]]),
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
    ],
)
def test_the_cycle_finder_finds_cycles(graph: dict[str, set[str]], expected: list) -> None:
    assert [c for c in _strongly_connected(graph) if len(c) > 1] == expected
