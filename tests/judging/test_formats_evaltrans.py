"""EvalTrans ``<eval>`` elements (as parsed by the corpus importer) mapped to judgment records."""

from __future__ import annotations

import pytest

from evaltrans.corpora.formats.base import (
    CorpusData,
    CorpusFormatError,
    EvaluationData,
    SegmentData,
)
from judging.formats.evaltrans import (
    ScoreLevels,
    control_classes,
    levels_from_metadata,
    records_from_corpus,
    records_from_evaluations,
)
from metrics.core.human_scores import human_scores

# Thesis Fig. A.1 / spec §16: count includes 0, firstvalid 1 => 0 means "not assessed".
LEVELS_XML = [
    {
        "class": "adequacy",
        "count": "6",
        "gray": "2",
        "green": "5",
        "perfect": "5",
        "firstvalid": "1",
    },
    {
        "class": "fluency",
        "count": "6",
        "gray": "2",
        "green": "5",
        "perfect": "5",
        "firstvalid": "1",
    },
    {
        "class": "isPerfect",
        "count": "2",
        "gray": "0",
        "green": "1",
        "perfect": "1",
        "firstvalid": "0",
    },
]


def _eval(
    aspect: str, value: float, target: str = "sysA", kind: str = "candidate", **attributes: str
) -> EvaluationData:
    return EvaluationData(kind, target, aspect, value, dict(attributes))


def test_levels_are_read_from_a_list_or_a_dict_of_xml_attributes():
    from_list = levels_from_metadata(LEVELS_XML)
    from_dict = levels_from_metadata({item["class"]: item for item in LEVELS_XML})
    assert from_list == from_dict
    assert from_list["adequacy"] == ScoreLevels("adequacy", 6, 1, 5)
    assert levels_from_metadata(None) == {}


def test_values_below_firstvalid_are_not_assessed_and_skipped():
    levels = levels_from_metadata(LEVELS_XML)
    records = records_from_evaluations(
        "7",
        [
            _eval("adequacy", 0, evaluator="ann"),
            _eval("fluency", 3, evaluator="ann"),
            _eval("isPerfect", 0, evaluator="ann"),
        ],
        levels,
    )
    assert [(r.aspect, r.raw) for r in records] == [("fluency", 3.0)]
    assert records[0].judge == "ann"
    assert records[0].segment_id == "7"
    assert records[0].kind == "SYSTEM"


def test_the_reference_flag_is_not_an_aspect():
    """isPerfect marks references (the deciding class, measures spec §16.1); its values are
    no quality judgments, so they give no records, on references nor on candidates."""
    segments = [
        SegmentData(
            "src 1",
            evaluations=[
                _eval("isPerfect", 1, "ref", kind="reference"),
                _eval("fluency", 5, "ref", kind="reference", evaluator="ann"),
                _eval("isPerfect", 0, "sysA"),
                _eval("fluency", 3, "sysA", evaluator="ann"),
            ],
        )
    ]
    corpus = CorpusData("de", "en", segments, metadata={"levels": LEVELS_XML})
    records = records_from_corpus(corpus)
    assert [(r.system, r.aspect, r.kind) for r in records] == [
        ("ref", "fluency", "REF"),
        ("sysA", "fluency", "SYSTEM"),
    ]
    # Without <levels> the recommended name alone marks the flag.
    assert records_from_evaluations("1", [_eval("isPerfect", 1)], {}) == []


def test_a_deciding_class_is_a_flag_only_when_it_has_two_levels():
    flag = [*LEVELS_XML[:2], {"class": "isRef", "count": "2", "perfect": "1"}]
    assert control_classes(levels_from_metadata(flag)) == {"isPerfect", "isRef"}
    records = records_from_evaluations(
        "1", [_eval("isRef", 1), _eval("adequacy", 4)], levels_from_metadata(flag)
    )
    assert [r.aspect for r in records] == ["adequacy"]
    # A real score class that comes last (fluency decides references) stays an aspect.
    fluency_last = [LEVELS_XML[0], LEVELS_XML[1]]
    assert control_classes(levels_from_metadata(fluency_last)) == {"isPerfect"}
    records = records_from_evaluations(
        "1", [_eval("fluency", 5, "r", kind="reference")], levels_from_metadata(fluency_last)
    )
    assert [(r.aspect, r.kind) for r in records] == [("fluency", "REF")]


def test_without_evaluator_the_kth_assessment_is_judge_unknown_k():
    records = records_from_evaluations(
        "1", [_eval("adequacy", 4), _eval("adequacy", 2), _eval("fluency", 5)], {}
    )
    assert [(r.judge, r.aspect) for r in records] == [
        ("unknown-1", "adequacy"),
        ("unknown-2", "adequacy"),
        ("unknown-1", "fluency"),
    ]


def test_a_named_evaluators_second_assessment_is_a_repeat_and_references_are_ref():
    records = records_from_evaluations(
        "1",
        [
            _eval("adequacy", 4, evaluator="ann"),
            _eval("adequacy", 3, evaluator="ann"),
            _eval("adequacy", 5, target="ref1", kind="reference", evaluator="ann", note="x"),
        ],
        levels_from_metadata(LEVELS_XML),
    )
    assert [r.kind for r in records] == ["SYSTEM", "REPEAT", "REF"]
    assert records[2].system == "ref1"
    assert records[2].extra == {"target_kind": "reference", "note": "x"}


def test_value_above_the_last_level_is_an_error_naming_the_target():
    with pytest.raises(CorpusFormatError) as error:
        records_from_evaluations(
            "3", [_eval("fluency", 6)], levels_from_metadata(LEVELS_XML), source_name="db.xml"
        )
    assert str(error.value).startswith('db.xml, segment 3, target "sysA":')
    assert "above the last level 5" in str(error.value)


def test_bad_levels_definition_is_an_error():
    with pytest.raises(CorpusFormatError, match="count='six' is not an integer"):
        levels_from_metadata([{"class": "fluency", "count": "six"}])
    with pytest.raises(CorpusFormatError, match="has no class"):
        levels_from_metadata([{"count": "6"}])


def test_corpus_records_feed_the_statistics_end_to_end():
    """Two judges, two systems: A+F system scores as the thesis defines them (sum of means)."""
    segments = [
        SegmentData(
            "src 1",
            seg_id="",
            evaluations=[
                _eval("adequacy", 5, "s1", evaluator="a"),
                _eval("fluency", 4, "s1", evaluator="a"),
                _eval("adequacy", 3, "s1", evaluator="b"),
                _eval("fluency", 2, "s1", evaluator="b"),
                _eval("adequacy", 2, "s2", evaluator="a"),
                _eval("fluency", 1, "s2", evaluator="a"),
            ],
        ),
        SegmentData(
            "src 2",
            seg_id="s-2",
            evaluations=[
                _eval("adequacy", 4, "s1", evaluator="a"),
                _eval("fluency", 0, "s1", evaluator="a"),
                _eval("fluency", 3, "s1", evaluator="b"),
                _eval("adequacy", 1, "s2", evaluator="b"),
                _eval("fluency", 2, "s2", evaluator="b"),
            ],
        ),
    ]
    corpus = CorpusData("zh", "en", segments, metadata={"levels": LEVELS_XML})
    records = records_from_corpus(corpus)
    assert {r.segment_id for r in records} == {"1", "s-2"}
    result = human_scores(records, aspect="adequacy+fluency", weighting="none", bootstrap_samples=0)
    # s1: segment 1 = (5+3)/2 + (4+2)/2 = 7; segment s-2 = 4 + 3 = 7 (fluency 0 not assessed).
    assert result.system("s1").raw == 7.0
    # s2: segment 1 = 2 + 1 = 3; segment s-2 = 1 + 2 = 3.
    assert result.system("s2").raw == 3.0
    assert result.system("s1").n_judgments == 6
