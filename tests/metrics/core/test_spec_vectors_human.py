"""Spec test vectors for human scores, correlation, complexity normalisation and STDEV.

preprocessing-and-complexity spec C.2.6 (human-score handling) and C.2.8 (readability,
complexity normalisation, sample STDEV), reproduced through ``metrics.core``. Every expected
value was re-derived by hand (the derivation sits next to it); scipy and ``statistics`` serve
only as second oracles, never as the code under test. Spec values are printed with six
decimals, so they are compared with half a unit of the last printed digit.

Not covered, because ``metrics.core`` has no function for them: the C.2.6 rule "for an error
measure, report |r|" (no sign-convention helper; the thesis negates r instead, and the two
readings differ on the 0.654654 vector, an error rate whose raw r is positive) and the C.2.8
improvement factor (mean raw sd / mean normalised sd).
"""

from __future__ import annotations

import math
import statistics

import pytest
from scipy import stats

from judging.formats import JudgmentRecord as J
from metrics.core.agreement import pearson
from metrics.core.complexity import (
    NORMALISATION_EXPONENTS,
    flesch_kincaid_grade,
    flesch_reading_ease,
    normalized_score,
)
from metrics.core.human_scores import human_scores, judge_stats, normalize_by_judge, weighted_mean

SIX_DECIMALS = 5e-7
THREE_DECIMALS = 5e-4

# C.2.6: judge A scores s1..s3 as 3, 4, 5; judge B scores them 1, 2, 3.
JUDGE_SCORES = {"A": [3.0, 4.0, 5.0], "B": [1.0, 2.0, 3.0]}
SENTENCES = ["s1", "s2", "s3"]
# Population sd of either judge: sqrt(((-1)^2 + 0^2 + 1^2) / 3) = sqrt(2/3).
POPULATION_SD = math.sqrt(2 / 3)
# z = (-1, 0, 1) / sqrt(2/3) = (-sqrt(3/2), 0, sqrt(3/2)) with ddof=0; the sample sd is
# sqrt(2/2) = 1, so ddof=1 leaves the deviations -1, 0, 1 unchanged.
Z_POPULATION = [-1.224745, 0.0, 1.224745]
Z_SAMPLE = [-1.0, 0.0, 1.0]


def _vector_judgments() -> list[J]:
    return [
        J("S", sentence, judge, "adequacy", score)
        for judge, scores in JUDGE_SCORES.items()
        for sentence, score in zip(SENTENCES, scores, strict=True)
    ]


# --------------------------------------------------------------------------- C.2.6 z-scores


@pytest.mark.parametrize(("judge", "mean"), [("A", 4.0), ("B", 2.0)])
def test_judge_mean_and_population_sd(judge, mean):
    """μ_A = 4, μ_B = 2 and σ = 0.816497 for both judges (ddof=0)."""
    own = judge_stats(judge, JUDGE_SCORES[judge], sd="population")
    assert own.mean == mean
    assert own.sd == pytest.approx(0.816497, abs=SIX_DECIMALS)
    assert own.sd == pytest.approx(POPULATION_SD, rel=1e-12)
    assert own.normalizable


@pytest.mark.parametrize(
    ("sd", "ddof", "expected"),
    [("population", 0, Z_POPULATION), ("sample", 1, Z_SAMPLE)],
)
def test_both_judges_get_the_same_z_scores(sd, ddof, expected):
    """ddof=0 gives -1.224745, 0, 1.224745 and ddof=1 gives -1, 0, 1, for each judge."""
    judges = [judge for judge, scores in JUDGE_SCORES.items() for _ in scores]
    raw = [score for scores in JUDGE_SCORES.values() for score in scores]
    z = normalize_by_judge(judges, raw, sd=sd).z.tolist()
    assert z[:3] == pytest.approx(expected, abs=SIX_DECIMALS)
    assert z[3:] == pytest.approx(expected, abs=SIX_DECIMALS)
    assert z[:3] == pytest.approx(stats.zscore(JUDGE_SCORES["A"], ddof=ddof).tolist(), abs=1e-12)


@pytest.mark.parametrize("sd", ["population", "sample"])
def test_second_sentence_raw_scores_differ_but_normalized_agree(sd):
    """s2 has raw scores 4 (A) and 2 (B); both normalise to 0."""
    records = _vector_judgments()
    z = normalize_by_judge([r.judge for r in records], [r.raw for r in records], sd=sd).z
    second = [k for k, r in enumerate(records) if r.segment_id == "s2"]
    assert sorted(records[k].raw for k in second) == [2.0, 4.0]
    assert [z[k] for k in second] == [0.0, 0.0]


@pytest.mark.parametrize(("sd", "expected"), [("population", Z_POPULATION), ("sample", Z_SAMPLE)])
def test_sentence_scores_keep_the_judges_common_z(sd, expected):
    """Through the full pipeline: raw sentence means are (3+1)/2, (4+2)/2, (5+3)/2 = 2, 3, 4,
    while the normalized sentence means are the z both judges share."""
    result = human_scores(
        _vector_judgments(), aspect="adequacy", weighting="none", sd=sd, bootstrap_samples=0
    )
    assert [s.segment_id for s in result.segments] == SENTENCES
    assert [s.raw for s in result.segments] == [2.0, 3.0, 4.0]
    assert [s.normalized for s in result.segments] == pytest.approx(expected, abs=SIX_DECIMALS)


# --------------------------------------------------------------------------- C.2.6 system score

# Sentence scores 5 and 3, candidate lengths 2 and 8: (2*5 + 8*3) / (2 + 8) = 34/10 = 3.4;
# unweighted (5 + 3) / 2 = 4.0.
SENTENCE_SCORES = {"1": 5.0, "2": 3.0}
CANDIDATE_LENGTHS = {("S", "1"): 2.0, ("S", "2"): 8.0}


@pytest.mark.parametrize(("weights", "expected"), [([2.0, 8.0], 3.4), ([1.0, 1.0], 4.0)])
def test_weighted_mean_vector(weights, expected):
    """Length-weighted system score 3.4, unweighted 4.0."""
    assert weighted_mean(list(SENTENCE_SCORES.values()), weights) == pytest.approx(
        expected, abs=1e-12
    )


@pytest.mark.parametrize(
    ("weighting", "lengths", "expected"),
    [
        ("candidate", {"candidate_lengths": CANDIDATE_LENGTHS}, 3.4),
        ("reference", {"reference_lengths": {"1": 2.0, "2": 8.0}}, 3.4),
        ("none", {}, 4.0),
    ],
)
def test_system_score_vector_through_the_pipeline(weighting, lengths, expected):
    """A system with sentence scores 5 and 3 (lengths 2 and 8) scores 3.4 weighted, 4.0 not."""
    records = [
        J("S", segment, "A", "adequacy", score) for segment, score in SENTENCE_SCORES.items()
    ]
    result = human_scores(
        records, aspect="adequacy", weighting=weighting, bootstrap_samples=0, **lengths
    )
    assert result.system("S").raw == pytest.approx(expected, abs=1e-12)


# --------------------------------------------------------------------------- C.2.6 Pearson


@pytest.mark.parametrize(
    ("x", "y", "printed", "exact"),
    [
        # Deviations x: -1.5, -0.5, 0.5, 1.5; y (mean 3.75): -1.75, 0.25, 1.25, 0.25.
        # Sxy = 2.625 - 0.125 + 0.625 + 0.375 = 3.5, Sxx = 5, Syy = 4.75: r = 3.5/sqrt(23.75).
        ([1, 2, 3, 4], [2, 4, 5, 4], 0.718185, 7 / math.sqrt(95)),
        # Deviations x: 0.05, 0, -0.05; y (mean 97/30): 1/6, -2/15, -1/30.
        # Sxy = 0.05/6 + 0.05/30 = 0.01, Sxx = 0.005, Syy = 7/150: r = sqrt(3/7).
        ([0.30, 0.25, 0.20], [3.4, 3.1, 3.2], 0.654654, math.sqrt(3 / 7)),
    ],
)
def test_pearson_vectors(x, y, printed, exact):
    """r([1,2,3,4], [2,4,5,4]) = 0.718185; r(auto, human) = +0.654654 before any sign rule."""
    result = pearson(x, y)
    assert result.r == pytest.approx(printed, abs=SIX_DECIMALS)
    assert result.r == pytest.approx(exact, rel=1e-12)
    assert result.n == len(x)


# --------------------------------------------------------------------------- C.2.8 readability


def test_flesch_reading_ease_vector():
    """ASL 10, ASW 1.5: 206.835 - 10.15 - 126.9 = 69.785."""
    assert flesch_reading_ease(10, 1.5) == pytest.approx(69.785, abs=1e-9)


def test_flesch_kincaid_grade_vector():
    """ASL 10, ASW 1.5: 3.9 + 17.7 - 15.59 = 6.01."""
    assert flesch_kincaid_grade(10, 1.5) == pytest.approx(6.01, abs=1e-9)


# --------------------------------------------------------------------------- C.2.8 normalisation


@pytest.mark.parametrize(
    ("measure", "raw", "factor", "normalised"),
    [
        # 0.3247 * 1.075 = 0.349053; 0.1877 * 1.075^2 = 0.1877 * 1.155625 = 0.216911.
        ("wnm", 0.3247, 1.075, 0.349),
        ("bleu", 0.1877, 1.075, 0.217),
        # 0.3908 * 0.865 = 0.338042; 0.3253 * 0.865^2 = 0.3253 * 0.748225 = 0.243398.
        ("wnm", 0.3908, 0.865, 0.338),
        ("bleu", 0.3253, 0.865, 0.243),
    ],
)
def test_normalised_score_vectors(measure, raw, factor, normalised):
    """wp (C = 1.075) and em (C = 0.865): WNM × C and BLEU × C² give the table's values."""
    value = normalized_score(raw, factor, NORMALISATION_EXPONENTS[measure])
    assert value == pytest.approx(normalised, abs=THREE_DECIMALS)


@pytest.mark.parametrize(
    ("measure", "factor", "multiplier"),
    [
        ("wnm", 1.075, 1.075),
        ("bleu", 1.075, 1.156),
        ("wnm", 0.865, 0.865),
        pytest.param(
            "bleu",
            0.865,
            0.747,
            marks=pytest.mark.xfail(
                strict=True,
                reason="C.2.8 prints the multiplier 0.747 for C = 0.865, but 0.865^2 = 0.748225 "
                "(0.747 fits C = 0.8643); the normalised 0.243 holds either way",
            ),
        ),
    ],
)
def test_printed_multipliers_are_powers_of_the_factor(measure, factor, multiplier):
    """The multipliers C.2.8 prints are C for WNM and C² for BLEU, to three decimals."""
    value = normalized_score(1.0, factor, NORMALISATION_EXPONENTS[measure])
    assert value == pytest.approx(multiplier, abs=THREE_DECIMALS)


@pytest.mark.parametrize("measure", sorted(NORMALISATION_EXPONENTS))
def test_news_factor_one_leaves_scores_unchanged(measure):
    """news, C = 1: the score is unchanged."""
    assert normalized_score(0.3247, 1.0, NORMALISATION_EXPONENTS[measure]) == 0.3247


# --------------------------------------------------------------------------- C.2.8 STDEV


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        # Mean 0.247667; squared deviations 0.00094044 + 0.00124844 + 0.00002178 = 0.00221067;
        # / 2 = 0.00110533; sqrt = 0.033247.
        ([0.217, 0.283, 0.243], 0.033247),
        # Mean 0.164; 0.000144 + 0.000676 + 0.000196 = 0.001016; / 2; sqrt = 0.022539.
        ([0.152, 0.19, 0.15], 0.022539),
        # Two values: |0.414 - 0.368| / sqrt(2) = 0.046 / 1.414214 = 0.032527.
        ([0.414, 0.368], 0.032527),
    ],
)
def test_sample_stdev_vectors(values, expected):
    """Sample STDEV (n - 1) of [B] Tables 4 and 5.

    The tables print 0.033, 0.022 and 0.033; 0.022539 rounds to 0.023, so the printed 0.022
    came from unrounded inputs and is not asserted.
    """
    sd = judge_stats("system", values, sd="sample").sd
    assert sd == pytest.approx(expected, abs=SIX_DECIMALS)
    assert sd == pytest.approx(statistics.stdev(values), rel=1e-12)
