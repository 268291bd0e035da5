"""Human scores of an EvalTrans database (``<eval>`` elements) as judgment records.

The corpus importer parses the XML (measures spec §16) into ``CorpusData``: each target's
``<eval class=".." val=".."/>`` becomes an ``EvaluationData`` of its segment, and the
``<levels>`` definitions are kept in ``corpus.metadata["levels"]``. This module maps them to
:class:`~judging.formats.JudgmentRecord` (human-eval spec §1.6, measures spec §13.2, §16.1):

* ``aspect`` = the eval's class; ``raw`` = its value; ``kind`` = REF for a reference target,
  SYSTEM for a candidate; ``system`` = the reference label or system name.
* A value below the class' ``firstvalid`` means "not assessed" and is skipped; a value above
  ``count - 1`` is an error. Classes without a ``<levels>`` definition are kept unchecked.
* ``judge`` = the ``evaluator`` attribute (the project's extension of the format). The thesis'
  format has no evaluator, so without it the k-th assessment of a class on a target is judge
  ``unknown-k`` (:data:`DEFAULT_JUDGE`), the "judgment 1 / judgment 2" of the thesis' IAC
  (§8.1). Such judges are slots, not people: normalizing per judge is then meaningless, which is
  why the thesis could not normalize BTEC.
* A further assessment of the same class on the same target by the same named evaluator is a
  REPEAT (a re-judgment).
* The class that marks references is not an aspect (:func:`control_classes`): the deciding class
  (the last ``<levels>``) when it is a yes/no flag, like the format's recommended ``isPerfect``
  (count 2), and any class named ``isPerfect``. Its values say which targets are references
  (the corpus importer has used them for that), not how good a translation is. A deciding class
  with more levels (e.g. fluency with ``perfect="5"``) is a real score and stays an aspect.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evaltrans.corpora.formats.base import CorpusData, EvaluationData

from .base import KIND_REF, KIND_REPEAT, KIND_SYSTEM, CorpusFormatError, JudgmentRecord, is_blank

DEFAULT_JUDGE = "unknown"
DEFAULT_SOURCE_NAME = "EvalTrans XML"
REFERENCE_FLAG = "isPerfect"
"""The format's recommended class for marking references (measures spec §16.1)."""
FLAG_MAX_COUNT = 2
"""A deciding class with at most this many levels (0/1) is a reference flag, not a score."""
MAX_LEVELS = 1000
"""The most valid levels of one class (a 0-100 scale has 101)."""


@dataclass(frozen=True)
class ScoreLevels:
    """One ``<levels>`` definition: values 0 .. count-1, valid from ``firstvalid``."""

    name: str
    count: int
    firstvalid: int
    perfect: int


def levels_from_metadata(
    levels: Iterable[Mapping[str, Any]] | Mapping[str, Mapping[str, Any]] | None,
    *,
    source_name: str = DEFAULT_SOURCE_NAME,
) -> dict[str, ScoreLevels]:
    """Read ``<levels>`` attributes: a list of attribute dicts (with ``class``) or a dict
    class -> attributes; values may be strings as in the XML.

    Raises:
        CorpusFormatError: a definition without ``class`` or with a non-integer count,
            firstvalid or perfect.
    """
    if levels is None:
        return {}
    if isinstance(levels, Mapping):
        items = [{"class": name, **dict(attributes)} for name, attributes in levels.items()]
    else:
        items = [dict(attributes) for attributes in levels]
    result = {}
    for attributes in items:
        name = str(attributes.get("class", ""))
        if not name:
            raise CorpusFormatError(
                source_name, "a <levels> definition has no class", None, "<levels>"
            )
        result[name] = ScoreLevels(
            name=name,
            count=_integer(attributes, "count", name, source_name),
            firstvalid=_integer(attributes, "firstvalid", name, source_name, default=0),
            perfect=_integer(attributes, "perfect", name, source_name, default=-1),
        )
        levels = result[name].count - result[name].firstvalid
        if levels > MAX_LEVELS:
            # The scale lists every valid level: a count of 10**12 would fill the memory.
            raise CorpusFormatError(
                source_name,
                f"{levels} valid levels (firstvalid to count-1); at most {MAX_LEVELS} are supported",
                None,
                f'<levels class="{name[:40]}">',
            )
    return result


def _integer(
    attributes: Mapping[str, Any], key: str, name: str, source_name: str, default: int | None = None
) -> int:
    value = attributes.get(key)
    if value is None and default is not None:
        return default
    try:
        return int(str(value))
    except ValueError:
        raise CorpusFormatError(
            source_name, f"{key}={value!r} is not an integer", None, f'<levels class="{name}">'
        ) from None


def control_classes(levels: Mapping[str, ScoreLevels]) -> set[str]:
    """Score classes that mark references instead of judging quality (module docstring).

    ``levels`` must be in document order: the last definition is the deciding class.
    """
    control = {REFERENCE_FLAG}
    if levels:
        deciding = list(levels.values())[-1]
        if deciding.count <= FLAG_MAX_COUNT:
            control.add(deciding.name)
    return control


def records_from_evaluations(
    segment_id: str,
    evaluations: Sequence[EvaluationData],
    levels: Mapping[str, ScoreLevels],
    *,
    default_judge: str = DEFAULT_JUDGE,
    source_name: str = DEFAULT_SOURCE_NAME,
) -> list[JudgmentRecord]:
    """The judgment records of one segment's evaluations (module docstring for the rules).

    Raises:
        CorpusFormatError: a value above the class' last level.
    """
    control = control_classes(levels)
    slots: Counter[tuple[str, str, str, str]] = Counter()
    records = []
    for evaluation in evaluations:
        if evaluation.aspect in control:
            continue
        definition = levels.get(evaluation.aspect)
        if definition is not None and evaluation.value < definition.firstvalid:
            continue
        if definition is not None and evaluation.value > definition.count - 1:
            raise CorpusFormatError(
                source_name,
                f"{evaluation.aspect} value {evaluation.value:g} is above the last level "
                f"{definition.count - 1}",
                None,
                f'segment {segment_id}, target "{evaluation.target_name}"',
            )
        records.append(_record(segment_id, evaluation, slots, default_judge))
    return records


def _record(
    segment_id: str,
    evaluation: EvaluationData,
    slots: Counter[tuple[str, str, str, str]],
    default_judge: str,
) -> JudgmentRecord:
    evaluator = evaluation.attributes.get("evaluator", "")
    if is_blank(evaluator):  # an evaluator of spaces or U+200B names no one
        evaluator = ""
    slot_key = (evaluation.target_kind, evaluation.target_name, evaluation.aspect, evaluator)
    slots[slot_key] += 1
    kind = KIND_REF if evaluation.target_kind == "reference" else KIND_SYSTEM
    judge = evaluator
    if not evaluator:
        judge = f"{default_judge}-{slots[slot_key]}"
    elif slots[slot_key] > 1:
        kind = KIND_REPEAT
    extra: dict[str, str | int | float] = {"target_kind": evaluation.target_kind}
    extra.update({k: v for k, v in evaluation.attributes.items() if k != "evaluator"})
    return JudgmentRecord(
        system=evaluation.target_name,
        segment_id=segment_id,
        judge=judge,
        aspect=evaluation.aspect,
        raw=float(evaluation.value),
        z_given=None,
        kind=kind,
        extra=extra,
    )


def records_from_corpus(
    corpus: CorpusData,
    *,
    levels: Mapping[str, ScoreLevels] | None = None,
    default_judge: str = DEFAULT_JUDGE,
    source_name: str = DEFAULT_SOURCE_NAME,
) -> list[JudgmentRecord]:
    """All judgment records of a parsed EvalTrans database.

    Args:
        corpus: the parsed database; ``metadata["levels"]`` holds the ``<levels>`` attributes
            unless ``levels`` is given.
        levels: score-class definitions (see :func:`levels_from_metadata`).
        default_judge: prefix of the judge of an assessment without ``evaluator``.
        source_name: the file name for error messages.

    Returns:
        Records in document order; ``segment_id`` is the segment's ``seg`` attribute, or its
        1-based position when it has none.
    """
    if levels is None:
        levels = levels_from_metadata(corpus.metadata.get("levels"), source_name=source_name)
    records = []
    for position, segment in enumerate(corpus.segments, 1):
        segment_id = segment.seg_id or str(position)
        records.extend(
            records_from_evaluations(
                segment_id,
                segment.evaluations,
                levels,
                default_judge=default_judge,
                source_name=source_name,
            )
        )
    return records
