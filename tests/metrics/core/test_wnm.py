"""WNM: the spec's C.2.7 vector (S-scores and P/R/F, weighted and not), test-set salience,
corpus-file errors, the CLI, WNM × C."""

from __future__ import annotations

import json
import math
from collections import Counter

import numpy as np
import pytest

from metrics.core import cli
from metrics.core.base import MeasureError
from metrics.core.complexity import NORMALISATION_EXPONENTS
from metrics.core.wnm import WNM, CorpusStats, salience, segment_salience

CORPUS_FILE = "<CorpStat>;30;3\nthe;6;3\nsat;1;1\nmat;1;1\non;3;3\n"
REFERENCE = "the cat sat on the mat"
CANDIDATE = "the cat is on a mat"


def test_c27_salience_scores():
    corpus = CorpusStats(
        {"the": 6, "sat": 1, "mat": 1, "on": 3}, {"the": 3, "sat": 1, "mat": 1, "on": 3}, 30, 3
    )
    scores = salience(Counter(REFERENCE.split()), corpus)
    assert scores == pytest.approx(
        {"the": 0.0, "cat": 1.504077, "sat": 0.182322, "on": 0.0, "mat": 0.182322}, abs=1e-6
    )


@pytest.fixture
def corpus_file(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text(CORPUS_FILE, encoding="utf-8")
    return path


def test_c27_scores(corpus_file):
    measure = WNM(tokenize="none", corpus_stats=str(corpus_file))
    stats = measure.statistics([CANDIDATE], [[REFERENCE]])
    assert stats[0].tolist() == pytest.approx([18, 18, 5, 11.257828, 12.898722, 3.190476], abs=1e-6)
    values = measure.values_of(stats[0])
    assert values["P"] == values["R"] == values["F"] == pytest.approx(0.277778, abs=1e-6)
    assert values["PW"] == pytest.approx(0.283401, abs=1e-6)
    assert values["RW"] == pytest.approx(0.247348, abs=1e-6)
    assert values["FW"] == pytest.approx(0.264150, abs=1e-6)
    assert measure.aggregate(stats).score == pytest.approx(24.7348, abs=1e-4)


def test_test_set_salience_treats_each_segment_as_a_text():
    texts = [Counter("a b".split()), Counter("a c".split()), Counter("d".split())]
    tables = segment_salience(texts)
    # "b" in text 0: P_doc 1/2, P_rest 0, P_corpus 1/5, (N − df)/N = 2/3 -> ln(5/3).
    assert tables[0]["b"] == pytest.approx(math.log(5 / 3))
    # "a" in text 0: P_doc 1/2, P_rest 1/3, P_corpus 2/5, (N − df)/N = 1/3 (negative S).
    assert tables[0]["a"] == pytest.approx(math.log((1 / 2 - 1 / 3) * (1 / 3) / (2 / 5)))
    assert tables[2] == {"d": pytest.approx(math.log(1 * (2 / 3) / (1 / 5)))}


def test_identical_text_scores_100_percent():
    measure = WNM()
    refs = [["the cat sat"], ["a dog barked"], ["birds fly south"], ["fish swim"]]
    result = measure.corpus_score([r[0] for r in refs], refs)
    assert result.details["R"] == result.details["P"] == pytest.approx(100.0)
    assert result.details["RW"] == pytest.approx(100.0)


def test_bad_corpus_file_is_a_measure_error(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("word;1;1\n", encoding="utf-8")
    with pytest.raises(MeasureError, match="corpus-stats"):
        WNM(corpus_stats=str(path)).context([["a"]])


def test_cli_scores_wnm_with_corpus_file(tmp_path, corpus_file, capsys):
    hyp, ref = tmp_path / "h", tmp_path / "r"
    hyp.write_text(CANDIDATE + "\n", encoding="utf-8")
    ref.write_text(REFERENCE + "\n", encoding="utf-8")
    assert (
        cli.main(
            [
                "score",
                "--measure",
                "wnm",
                "--ref",
                str(ref),
                "--hyp",
                str(hyp),
                "--option",
                f"corpus-stats={corpus_file}",
                "--option",
                "score=FW",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["score"] == pytest.approx(26.4150, abs=1e-4)


def test_wnm_times_c_matches_the_paper_rounding() -> None:
    """C.2.8: WNM raw 0.3247 × 1.075 → 0.349; the exponent of WNM is 1."""
    assert NORMALISATION_EXPONENTS["wnm"] == 1.0
    wnm = WNM(complexity_factor=1.075)
    assert (
        round(wnm.aggregate(np.array([[10.0, 10.0, 3.247, 10.0, 10.0, 3.247]])).score / 100, 3)
        == 0.349
    )
