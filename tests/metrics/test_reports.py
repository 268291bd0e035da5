"""The EvalTrans XML report (measures spec §17, Figs. A.2 and A.3).

The element paths below are read off the spec's figures; every number is compared with the
stored results of a run or with ``metrics.core`` called directly on the same texts.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from metrics.core import get_metric
from metrics.models import SystemScore
from metrics.reports import (
    ReportData,
    ReportMeasure,
    ReportSentence,
    ReportSystem,
    report_tag,
    report_xml,
)
from metrics.selectors.reports import run_report_data
from metrics.services import runs
from tests.metrics.run_helpers import OUTPUTS, REFERENCES, choices, make_test_set

SECOND_REFERENCES = [
    "the cat was sitting on the mat",
    "a dog is in the garden",
    "we were there before",
    "every evening he reads a long book",
    "today the weather is nice",
    "she meets us in the lobby at noon",
    "the children were all playing outside",
    "this sentence is short",
]
# Fig. A.2, in order; <test-set> is an extension between <files> and the statistics.
FIGURE_A2_CHILDREN = [
    "author",
    "date",
    "comment",
    "software",
    "files",
    "test-set",
    "candidate-statistics",
    "evaluation-options",
    "evaluation",
    "candidate-evaluation",
]
ERROR_RATE_ELEMENTS = ["error-rate", "error-rate-percent", "reference-length", "sum"]
OPTIONS = {
    "wer": {"ref-length-rule": "average"},
    "per": {"substitution-cost-rule": "prefix"},
    "cder": {"direction": "backward", "coverage-rule": "half", "ref-length-rule": "average"},
    "mper": {"min-ngram": 1, "max-ngram": 3, "ref-length-rule": "average"},
    "skipper": {"max-bigram-skip": 2},
    "bleu": {"smoothing": "none", "tokenize": "none"},
    "nist": {"max-ngram": 4},
}
MEASURES = ["wer", "per", "cder", "mper", "skipper", "bleu", "nist", "ter", "chrf"]


def parse(text: str) -> ET.Element:
    assert text.startswith('<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE etreport')
    return ET.fromstring(text.split("\n", 2)[2])


def number(element: ET.Element, path: str) -> float:
    found = element.find(path)
    assert found is not None, f"missing {path} in <{element.tag}>"
    return float(found.text)


def references_of(k: int) -> list[str]:
    return [REFERENCES[k], SECOND_REFERENCES[k]]


def core(name: str, **overrides):
    return get_metric(name)(**{**OPTIONS.get(name, {}), **overrides})


def corpus(name: str, system: str, **overrides):
    refs = [references_of(k) for k in range(len(REFERENCES))]
    return core(name, **overrides).corpus_score(OUTPUTS[system], refs)


@pytest.fixture
def report(db, django_capture_on_commit_callbacks):
    """A run of nine measures on two references, reported with every sentence."""
    test_set = make_test_set("report", second_references=SECOND_REFERENCES)
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.metric_run_start(
            test_set=test_set,
            systems=test_set.systems.all(),
            measures=choices(*MEASURES, **OPTIONS),
            chunk_size=3,
            comment="nightly",
        )
    run.refresh_from_db()
    data = run_report_data(run=run, sentences_in_detail=True, include_sentences=True)
    root = parse(report_xml(data))
    stored = {
        (score.system.name, score.measure): score
        for score in SystemScore.objects.filter(test_set=test_set)
    }
    return run, root, stored


def evaluation(root: ET.Element, system: str) -> ET.Element:
    return next(e for e in root.findall("evaluation") if e.get("system") == system)


def test_report_layout_follows_figure_a2(report):
    run, root, _ = report
    children = []
    for child in root:
        if not children or children[-1] != child.tag:
            children.append(child.tag)
    assert children == FIGURE_A2_CHILDREN
    assert root.findtext("comment") == "nightly"
    assert root.find("files/database-file").get("content-sha256") == run.test_set.content_hash
    assert [e.get("system") for e in root.findall("evaluation")] == ["sys-a", "sys-b"]


def test_runs_name_the_evaluate_command_that_reproduces_them(report):
    run, root, _ = report
    command = root.findtext("files/command-line")
    assert command == run.command_line
    assert command.startswith("manage.py evaluate --test-set report --test-set-version 1")
    assert "--option wer.ref-length-rule=average" in command
    assert "--option bleu.smoothing=none" in command
    assert "--comment nightly" in command


def test_candidate_statistics_hold_lengths_and_references(report):
    _, root, _ = report
    for system, texts in OUTPUTS.items():
        block = next(e for e in root.findall("candidate-statistics") if e.get("system") == system)
        assert number(block, "sentences") == len(texts)
        assert number(block, "candidate-length") == sum(len(text.split()) for text in texts)
        assert number(block, "references") == 2
        expected = sum(
            (len(REFERENCES[k].split()) + len(SECOND_REFERENCES[k].split())) / 2
            for k in range(len(REFERENCES))
        )
        assert number(block, "average-reference-length") == pytest.approx(expected)


def test_evaluation_options_use_the_spec_names(report):
    _, root, _ = report
    options = root.find("evaluation-options")
    assert options.findtext("wer-options/reference-length-rule") == "average"
    assert options.find("per-options") is None  # word-dependent costs: the wper block
    assert options.findtext("wper-options/substitution-cost-rule") == "prefix"
    cder = options.find("cder-options")
    assert [cder.findtext(key) for key in ("coverage-rule", "pad-rule")] == ["half", "both"]
    nper = options.find("nper-options")
    for key, value in {
        "max-ngram": "3",
        "pad-rule": "both",
        "reference-length-rule": "average",
        "choose-references-separately": "false",
    }.items():
        assert nper.findtext(key) == value
    assert options.findtext("skip-bigram-per-options/max-bigram-skip") == "2"
    for measure in ("bleu", "nist"):
        for key in ("max-ngram", "pad-rule", "reference-length-rule"):
            assert options.find(f"{measure}-options/{key}") is not None


@pytest.mark.parametrize("system", ["sys-a", "sys-b"])
def test_distance_blocks_follow_figure_a3(report, system):
    _, root, stored = report
    block = evaluation(root, system)
    for name, path in [("wer", "wer"), ("per", "wper"), ("ter", "ter")]:
        expected = corpus(name, system)
        element = block.find(path)
        assert [child.tag for child in element][:4] == ERROR_RATE_ELEMENTS
        assert number(element, "error-rate-percent") == stored[(system, name)].score
        assert number(element, "error-rate-percent") == pytest.approx(expected.score, abs=1e-12)
        assert number(element, "sum") == expected.details["distance"]
        assert number(element, "reference-length") == expected.details["ref_length"]
        assert number(element, "error-rate") == pytest.approx(
            expected.details["distance"] / expected.details["ref_length"]
        )
    # CDER: the direction of the run, no numbers outside it.
    cder = block.find("cder")
    assert [child.tag for child in cder] == ["backward"]
    assert number(cder, "backward/error-rate-percent") == stored[(system, "cder")].score
    assert number(cder, "backward/sum") == corpus("cder", system).details["distance"]


@pytest.mark.parametrize("system", ["sys-a", "sys-b"])
def test_nper_has_one_block_per_order(report, system):
    _, root, stored = report
    nper = evaluation(root, system).find("nper")
    assert number(nper, "error-rate-percent") == stored[(system, "mper")].score
    grams = nper.findall("n-gram")
    assert [gram.get("n") for gram in grams] == ["1", "2", "3"]
    for gram in grams:
        order = int(gram.get("n"))
        alone = corpus("mper", system, **{"min-ngram": order, "max-ngram": order})
        assert [child.tag for child in gram] == ERROR_RATE_ELEMENTS
        assert number(gram, "sum") == alone.details["distance"]
        assert number(gram, "reference-length") == alone.details["ref_length"]
        assert number(gram, "error-rate-percent") == pytest.approx(alone.score)
    skip = evaluation(root, system).find("skip-bigram-per")
    assert skip.get("max-skip") == "2"
    assert number(skip, "error-rate-percent") == stored[(system, "skipper")].score


@pytest.mark.parametrize("system", ["sys-a", "sys-b"])
def test_bleu_and_nist_blocks_follow_figure_a3(report, system):
    _, root, stored = report
    bleu = evaluation(root, system).find("bleu")
    assert bleu.get("smoothing") == "none"
    score = number(bleu, "score")
    assert score == stored[(system, "bleu")].score
    assert number(bleu, "score-unpenalized") * number(bleu, "length-penalty") == pytest.approx(
        score
    )
    assert number(bleu, "s-score") == pytest.approx(
        corpus("bleu", system, smoothing="bleu-s").score
    )
    assert number(bleu, "r-score") == pytest.approx(
        corpus("bleu", system, smoothing="bleu-s-prime").score
    )
    assert number(bleu, "s-score-unpenalized") == pytest.approx(
        corpus("bleu", system, smoothing="bleu-s").details["score_unpenalized"]
    )
    direct = corpus("bleu", system)
    assert number(bleu, "length-penalty") == direct.details["brevity_penalty"]
    grams = bleu.findall("n-gram")
    assert [gram.get("n") for gram in grams] == ["1", "2", "3", "4"]
    for gram, correct, total in zip(
        grams, direct.details["correct"], direct.details["total"], strict=True
    ):
        assert (number(gram, "correct"), number(gram, "total")) == (correct, total)
        assert number(gram, "precision") == pytest.approx(correct / total)
    assert bleu.find("brevity-penalty") is None and bleu.find("precisions") is None

    nist = evaluation(root, system).find("nist")
    assert number(nist, "score") == stored[(system, "nist")].score
    terms = [number(gram, "score") for gram in nist.findall("n-gram")]
    assert terms == pytest.approx(corpus("nist", system).details["ngram_terms"])
    assert number(nist, "score-unpenalized") == pytest.approx(sum(terms))
    assert number(nist, "score-unpenalized") * number(nist, "length-penalty") == pytest.approx(
        number(nist, "score")
    )
    chrf = evaluation(root, system).find("chrf")
    assert number(chrf, "score") == stored[(system, "chrf")].score


def test_sentences_carry_blocks_and_reference_distances(report):
    _, root, _ = report
    sentences = root.find("candidate-evaluation").findall("candidate")
    assert [int(c.get("nr")) for c in sentences] == list(range(len(REFERENCES)))
    wer, cder = core("wer"), core("cder")
    for k, candidate in enumerate(sentences):
        hyp = OUTPUTS["sys-a"][k]
        assert candidate.findtext("target") == hyp
        assert [e.text for e in candidate.findall("reference")] == references_of(k)
        distances = candidate.findall("wer/reference-distance")
        assert [e.get("nr") for e in distances] == ["0", "1"]
        for element, reference in zip(distances, references_of(k), strict=True):
            alone = wer.statistics([hyp], [[reference]])[0]
            assert (float(element.get("distance")), float(element.get("length"))) == (
                alone[0],
                alone[1],
            )
        # Rule "average": the nearest distance over the mean reference length.
        assert number(candidate, "wer/sum") == min(float(e.get("distance")) for e in distances)
        assert number(candidate, "wer/reference-length") == pytest.approx(
            sum(float(e.get("length")) for e in distances) / 2
        )
        backward = candidate.findall("cder/backward/reference-distance")
        assert [float(e.get("distance")) for e in backward] == [
            cder.statistics([hyp], [[reference]])[0][0] for reference in references_of(k)
        ]
        assert candidate.find("nper/n-gram[@n='2']/sum") is not None
        bleu = candidate.find("bleu")
        sentence_bleu = core("bleu")
        stats = sentence_bleu.statistics([hyp], [references_of(k)])
        assert number(bleu, "score") == pytest.approx(sentence_bleu.sentence_scores(stats)[0])
        assert number(bleu, "n-gram[@n='1']/correct") == stats[0][2]


def test_single_reference_distances_come_from_the_stored_statistics(
    db, django_capture_on_commit_callbacks
):
    test_set = make_test_set("one-ref")
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.metric_run_start(
            test_set=test_set, systems=test_set.systems.all(), measures=choices("wer", "mper")
        )
    run.refresh_from_db()
    root = parse(report_xml(run_report_data(run=run, sentences_in_detail=True)))
    wer = get_metric("wer")()
    for k, candidate in enumerate(root.find("candidate-evaluation").findall("candidate")):
        expected = wer.statistics([OUTPUTS["sys-a"][k]], [[REFERENCES[k]]])[0]
        (element,) = candidate.findall("wer/reference-distance")
        assert (element.get("nr"), float(element.get("distance"))) == ("0", expected[0])
        assert float(element.get("length")) == expected[1]
        assert candidate.find("nper/reference-distance") is not None
        assert candidate.find("source").text is None  # numbers only without include-sentences


# --- the writer on its own -----------------------------------------------------------------

WER_SIG = "wer|nrefs:1|tok:13a|lc:no|reflen:lowestError|version:1.0"


def sample(**overrides) -> ReportData:
    data = ReportData(
        author="admin",
        date="2025-01-02T03:04:05+00:00",
        software="evaltrans 0.1.0",
        test_set={"name": "news", "version": 2, "content_hash": "ab" * 32, "segments": 2},
        measures=[ReportMeasure("wer", WER_SIG, {"ref-length-rule": "lowestError"})],
        systems=[
            ReportSystem(
                name='sys <a> & "b"',
                scores={WER_SIG: (25.0, {"distance": 3.0, "ref_length": 12.0, "segments": 2})},
                sentences=[
                    ReportSentence(
                        0,
                        "src\x0b one",
                        "hyp <one>",
                        ["ref one"],
                        {WER_SIG: None},
                        {WER_SIG: {"distance": 2.0, "ref_length": 0.0}},
                    ),
                ],
            ),
            ReportSystem(name="sys-c", scores={}),
        ],
        comment="a & b",
        include_sentences=True,
    )
    for key, value in overrides.items():
        setattr(data, key, value)
    return data


def test_texts_are_escaped_and_cleaned_and_undefined_numbers_are_nan():
    root = parse(report_xml(sample()))
    assert root.findtext("comment") == "a & b"
    assert root.find("evaluation").get("system") == 'sys <a> & "b"'
    candidate = root.find("candidate-evaluation/candidate")
    assert candidate.findtext("source") == "src one"  # XML-illegal control character dropped
    assert candidate.findtext("target") == "hyp <one>"
    assert candidate.findtext("wer/error-rate") == "NaN"
    missing = root.findall("evaluation")[1].find("wer")
    assert missing.findtext("score") == "NaN" and missing.find("sum") is None


@pytest.mark.parametrize(
    ("name", "options", "tag"),
    [
        ("wer", {"substitution-cost-rule": "none"}, "wer"),
        ("wer", {"substitution-cost-rule": "levenshtein"}, "wwer"),
        ("per", {"substitution-cost-rule": "prefix"}, "wper"),
        ("cder", {"substitution-cost-rule": "prefix"}, "wcder"),
        ("mper", {}, "nper"),
        ("skipper", {}, "skip-bigram-per"),
        ("msder", {}, "msder"),
        ("invwer", {}, "invwer"),
    ],
)
def test_report_tags_are_the_spec_names(name, options, tag):
    assert report_tag(ReportMeasure(name, "", options)) == tag
