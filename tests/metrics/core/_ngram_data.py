"""Loaders for the shared WMT data used by the n-gram measure tests (skip when absent)."""

from __future__ import annotations

import csv
import gzip
from pathlib import Path

from tests.conftest import shared_path

WMT21_SYSTEMS = (
    "CUNI-DocTransformer",
    "CUNI-Transformer2018",
    "Facebook-AI",
    "Online-A",
    "Online-B",
    "Online-G",
    "Online-W",
    "Online-Y",
)


def read_lines(path: Path) -> list[str]:
    """Lines of a UTF-8 file (gzip by suffix), BOM kept as sacreBLEU's test data has it."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", newline="\n") as handle:
        text = handle.read()
    return text[:-1].split("\n") if text.endswith("\n") else text.split("\n")


def wmt17() -> tuple[list[str], dict[str, list[str]], dict[str, dict[str, str]]]:
    """WMT17 en-de: reference, the 16 systems by name, expected-scores rows by name."""
    root = shared_path("wmt17-en-de-sacrebleu")
    reference = read_lines(root / "newstest2017-ende-ref.de.gz")
    systems = {
        path.name.removesuffix(".gz"): read_lines(path)
        for path in sorted((root / "system-outputs").glob("*.gz"))
    }
    with open(root / "expected-scores.tsv", encoding="utf-8") as handle:
        expected = {row["system"]: row for row in csv.DictReader(handle, delimiter="\t")}
    return reference, systems, expected


def wmt21() -> tuple[list[str], list[str], dict[str, list[str]], dict[str, dict[str, str]]]:
    """WMT21 cs-en: references A and B, the 8 systems, expected-scores rows by system."""
    root = shared_path("wmt21-news-cs-en")
    ref_a = read_lines(root / "txt/references/newstest2021.cs-en.ref.A.en")
    ref_b = read_lines(root / "txt/references/newstest2021.cs-en.ref.B.en")
    systems = {
        name: read_lines(root / f"txt/system-outputs/newstest2021.cs-en.hyp.{name}.en")
        for name in WMT21_SYSTEMS
    }
    with open(root / "expected-scores.tsv", encoding="utf-8") as handle:
        expected = {row["system"]: row for row in csv.DictReader(handle, delimiter="\t")}
    return ref_a, ref_b, systems, expected


def wmt21_official() -> dict[tuple[str, str], float]:
    """Official WMT21 cs-en sacreBLEU values: (system, metric such as bleu-A) -> score."""
    path = shared_path("wmt21-news-cs-en", "scores", "automatic-scores.tsv")
    with open(path, encoding="utf-8") as handle:
        return {
            (row["system"], row["metric"]): float(row["score"])
            for row in csv.DictReader(handle, delimiter="\t")
            if row["pair"] == "cs-en"
        }


def mteval_segment_rows() -> list[dict[str, str]]:
    """Frozen ``mteval-v13a.pl -c -d 2`` output for Facebook-AI against reference A: one row
    per segment with columns ``seg``, ``mteval13a_c_bleu_refA``, ``mteval13a_c_nist_refA``."""
    path = shared_path("wmt21-news-cs-en", "expected-mteval-v13a-seg-Facebook-AI.tsv")
    with open(path, encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def segments(*streams: list[str]) -> list[list[str]]:
    return [list(references) for references in zip(*streams, strict=True)]
