"""metrics/core is a pure library: no Django, only stdlib, numpy, scipy, rapidfuzz, regex, numba."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[3] / "metrics" / "core"
ALLOWED_THIRD_PARTY = {"numpy", "scipy", "rapidfuzz", "regex", "numba"}


def _imported_modules(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names


@pytest.mark.parametrize("path", sorted(CORE.rglob("*.py")), ids=lambda p: p.name)
def test_only_allowed_imports(path: Path) -> None:
    for name in _imported_modules(path):
        top = name.split(".")[0]
        assert top != "django", f"{path.name} imports {name}"
        allowed = top in sys.stdlib_module_names or top in ALLOWED_THIRD_PARTY
        assert allowed or name.startswith("metrics.core"), f"{path.name} imports {name}"


def test_the_check_sees_imports() -> None:
    assert "numpy" in _imported_modules(CORE / "alignment.py")
