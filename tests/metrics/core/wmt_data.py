"""Readers of the shared WMT test sets for the edit-distance tests (paths via ``shared_path``).

Files are read as sacreBLEU reads them: plain UTF-8 (a byte-order mark stays in the text),
one segment per line.
"""

from __future__ import annotations

import csv
import gzip
from functools import cache
from pathlib import Path

from tests.conftest import shared_path

WMT17 = "wmt17-en-de-sacrebleu"
WMT21 = "wmt21-news-cs-en"


def read_lines(path: Path) -> list[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return handle.read().split("\n")[:-1]


@cache
def _wmt17(root: Path) -> tuple[list[str], dict[str, list[str]], dict[str, dict[str, str]]]:
    reference = read_lines(root / "newstest2017-ende-ref.de.gz")
    systems = {
        path.name[: -len(".gz")]: read_lines(path)
        for path in sorted((root / "system-outputs").glob("*.gz"))
    }
    with open(root / "expected-scores.tsv", encoding="utf-8") as handle:
        expected = {row["system"]: row for row in csv.DictReader(handle, delimiter="\t")}
    return reference, systems, expected


def wmt17() -> tuple[list[str], dict[str, list[str]], dict[str, dict[str, str]]]:
    """(reference lines, system name -> hypothesis lines, system -> expected-scores row)."""
    return _wmt17(shared_path(WMT17))


@cache
def _wmt21(root: Path) -> tuple[list[list[str]], dict[str, list[str]], dict[str, dict[str, str]]]:
    references = [
        read_lines(root / "txt" / "references" / f"newstest2021.cs-en.ref.{name}.en")
        for name in ("A", "B")
    ]
    prefix = "newstest2021.cs-en.hyp."
    systems = {
        path.name[len(prefix) : -len(".en")]: read_lines(path)
        for path in sorted((root / "txt" / "system-outputs").glob(prefix + "*"))
    }
    with open(root / "expected-scores.tsv", encoding="utf-8") as handle:
        expected = {row["system"]: row for row in csv.DictReader(handle, delimiter="\t")}
    return references, systems, expected


def wmt21() -> tuple[list[list[str]], dict[str, list[str]], dict[str, dict[str, str]]]:
    """([reference A lines, reference B lines], system -> lines, system -> expected row)."""
    return _wmt21(shared_path(WMT21))
