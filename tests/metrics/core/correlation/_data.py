"""Real data for the correlation tests, read without the Django app (paths via ``shared_path``).

* MQM TED en-de (WMT21 TED talks, Freitag et al.): ``human_mqm()`` is the (14 systems × 606
  segments) matrix of averaged MQM scores, NaN where the file has ``None``. Real per-cell
  "metrics" come from the error annotations of the same cells (``mqm_ted_ende.tsv``): minus the
  number of errors, minus the number of major errors, and the length of the target in
  characters. They are deterministic, computed here, and independent of the code under test.
* WMT21 news cs-en: ``wmt21_system_level()`` gives the 8 systems' DA z-scores (human) and their
  sacreBLEU/mteval scores (metrics), from ``expected-scores.tsv``.
"""

from __future__ import annotations

import csv
from functools import cache

import numpy as np

from tests.conftest import shared_path

TED = ("wmt-mqm-ted", "ted", "ende")
WMT21 = "wmt21-news-cs-en"


@cache
def human_mqm() -> tuple[list[str], np.ndarray]:
    """(system names, (S, K) MQM scores) of MQM TED en-de."""
    path = shared_path(*TED, "mqm_ted_ende.avg_seg_scores.tsv")
    scores: dict[str, dict[int, float]] = {}
    with open(path, encoding="utf-8") as handle:
        next(handle)
        for line in handle:
            system, rest = line.rstrip("\n").split("\t")
            value, segment = rest.split(" ")
            scores.setdefault(system, {})[int(segment)] = (
                np.nan if value == "None" else float(value)
            )
    systems = sorted(scores)
    segments = sorted(scores[systems[0]])
    matrix = np.array([[scores[s][k] for k in segments] for s in systems])
    return systems, matrix


@cache
def annotation_metrics() -> np.ndarray:
    """(3, S, K): -errors, -major errors, target length per cell of :func:`human_mqm`."""
    systems, human = human_mqm()
    path = shared_path(*TED, "mqm_ted_ende.tsv")
    errors: dict[tuple[str, int], int] = {}
    major: dict[tuple[str, int], int] = {}
    length: dict[tuple[str, int], int] = {}
    with open(path, encoding="utf-8") as handle:
        reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        next(reader)
        for row in reader:
            system = "ref-A" if row[0] == "ref" else row[0]
            key = (system, int(row[3]))
            length[key] = len(row[6].replace("<v>", "").replace("</v>", ""))
            errors[key] = errors.get(key, 0) + (row[7] != "No-error")
            major[key] = major.get(key, 0) + (row[8] == "Major")
    out = np.full((3, *human.shape), np.nan)
    for i, system in enumerate(systems):
        for k in range(human.shape[1]):
            key = (system, k + 1)
            if key in length:
                out[0, i, k] = -errors[key]
                out[1, i, k] = -major[key]
                out[2, i, k] = length[key]
    return out


@cache
def wmt21_system_level() -> tuple[list[str], np.ndarray, list[str], np.ndarray]:
    """(systems, (S, 1) DA z-scores, metric names, (M, S, 1) metric scores; TER negated)."""
    path = shared_path(WMT21, "expected-scores.tsv")
    with open(path, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    names = [
        "sacrebleu_bleu_refA",
        "sacrebleu_chrF2_refA",
        "sacrebleu_ter_refA",
        "mteval13a_c_nist_refA",
        "sacrebleu_bleu_refAB",
    ]
    systems = [row["system"] for row in rows]
    human = np.array([[float(row["da_z"])] for row in rows])
    metrics = np.array([[[float(row[name])] for row in rows] for name in names])
    metrics[names.index("sacrebleu_ter_refA")] *= -1.0
    return systems, human, names, metrics
