"""metrics/core is a pure library: no Django, only stdlib, numpy, scipy, rapidfuzz, regex, numba.

Two checks: the import statements of every file (static), and a fresh interpreter that imports
every module and then looks for Django in ``sys.modules`` (catches indirect imports too)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[3] / "metrics" / "core"
ALLOWED_THIRD_PARTY = {"numpy", "scipy", "rapidfuzz", "regex", "numba"}
LAZY_THIRD_PARTY = {"spacy": CORE / "edpm"}
"""A measure's own heavy dependency (DESIGN.md): allowed in its package, inside functions only,
so that importing metrics.core never loads it."""


def _imported_modules(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names


def _lazy(path: Path, name: str) -> bool:
    """Whether ``name`` is a lazy dependency of ``path``'s package, imported in no module body."""
    home = LAZY_THIRD_PARTY.get(name.split(".")[0])
    if home is None or home not in path.parents:
        return False
    body = ast.parse(path.read_text(encoding="utf-8")).body
    return name not in _imported_modules_of(body)


def _imported_modules_of(nodes: list[ast.stmt]) -> list[str]:
    return [
        alias.name for node in nodes if isinstance(node, ast.Import) for alias in node.names
    ] + [node.module for node in nodes if isinstance(node, ast.ImportFrom) and node.module]


@pytest.mark.parametrize("path", sorted(CORE.rglob("*.py")), ids=lambda p: p.name)
def test_only_allowed_imports(path: Path) -> None:
    for name in _imported_modules(path):
        top = name.split(".")[0]
        assert top != "django", f"{path.name} imports {name}"
        allowed = top in sys.stdlib_module_names or top in ALLOWED_THIRD_PARTY or _lazy(path, name)
        assert allowed or name.startswith("metrics.core"), f"{path.name} imports {name}"


def test_the_check_sees_imports() -> None:
    assert "numpy" in _imported_modules(CORE / "alignment.py")


# Imports every module of metrics.core (not ``__main__``, which runs the command line; its only
# import is ``cli``) and prints their names and the Django modules that got loaded.
IMPORT_EVERYTHING = """
import importlib, json, pkgutil, sys
import metrics.core
names = sorted(
    module.name
    for module in pkgutil.walk_packages(metrics.core.__path__, "metrics.core.")
    if not module.name.endswith(".__main__")
)
for name in names:
    importlib.import_module(name)
django = sorted(name for name in sys.modules if name.split(".")[0] == "django")
print(json.dumps({"modules": names, "django": django}))
"""


def _import_everything(prelude: str = "") -> dict[str, list[str]]:
    env = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    env["PYTHONPATH"] = str(CORE.parents[1])
    result = subprocess.run(
        [sys.executable, "-c", prelude + IMPORT_EVERYTHING],
        cwd=CORE.parents[1],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(result.stdout.splitlines()[-1])


def test_importing_every_module_loads_no_django() -> None:
    loaded = _import_everything()
    files = {
        ".".join(path.relative_to(CORE).with_suffix("").parts).removesuffix(".__init__")
        for path in CORE.rglob("*.py")
    } - {"__init__", "__main__"}
    assert {name.removeprefix("metrics.core.") for name in loaded["modules"]} == files
    assert loaded["django"] == []


def test_the_subprocess_check_sees_django() -> None:
    assert "django" in _import_everything("import django\n")["django"]
