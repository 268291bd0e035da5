"""The two-system comparison page (MT-ComparEval / compare-mt style) on stored runs.

For one test set, two of its systems and one stored measure setting: both corpus scores
(``SystemScore``), a paired bootstrap of the mean sentence-score difference over the segments
both have a defined score for, the segments where the two differ most, and the confirmed
n-grams one system gets right and the other does not (``metrics.compare_ngrams``).

Differences are oriented so that positive means b is better: b − a for measures where higher
is better, a − b for error measures.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field

from evaltrans.corpora.models import Candidate, Reference, Segment, System, TestSet
from metrics.compare_ngrams import confirmed_differences
from metrics.core.resampling import DEFAULT_SEED, paired_bootstrap
from metrics.models import SystemScore
from metrics.selectors.runs import segment_arrays
from metrics.selectors.segments.segment_page import ScoreColumn, score_columns

SAMPLES = 1000
TOP_SEGMENTS = 25

TOO_FEW_SYSTEMS = "test set {name!r} has fewer than two systems: nothing to compare"
NO_SETTINGS = (
    "no stored measure results for test set {name!r}; compute them first "
    "(manage.py evaluate or the Runs page)"
)
UNKNOWN_SYSTEM = "unknown system {name!r} (systems of this test set: {known})"
SAME_SYSTEM = "choose two different systems (both are {name!r})"
UNKNOWN_SIGNATURE = "unknown measure setting {signature!r} (stored: {known})"
NOT_STORED = "the sentence scores of {name!r} under {label} are not (completely) stored"


class CompareError(ValueError):
    """The comparison cannot be made as asked; the message is for the user."""


@dataclass
class SegmentRow:
    number: int
    score_a: float
    score_b: float
    difference: float
    """Oriented: positive = b better."""
    text_a: str
    text_b: str


@dataclass
class NgramOrder:
    order: int
    only_a: list[tuple[str, int]]
    only_b: list[tuple[str, int]]


@dataclass
class ComparePage:
    test_set: TestSet
    systems: list[str]
    settings: list[ScoreColumn]
    a: str = ""
    b: str = ""
    setting: ScoreColumn | None = None
    corpus_a: float | None = None
    corpus_b: float | None = None
    difference: float | None = None
    """Oriented mean sentence-score difference over the common segments (positive = b better)."""
    p: float = 1.0
    n: int = 0
    b_better: list[SegmentRow] = field(default_factory=list)
    a_better: list[SegmentRow] = field(default_factory=list)
    ngrams: list[NgramOrder] = field(default_factory=list)
    error: str = ""

    @property
    def corpus_difference(self) -> float | None:
        """Corpus score of b minus a, not oriented."""
        if self.corpus_a is None or self.corpus_b is None:
            return None
        return self.corpus_b - self.corpus_a

    @property
    def better(self) -> str | None:
        if self.difference is None or not math.isfinite(self.difference) or self.difference == 0:
            return None
        return self.b if self.difference > 0 else self.a

    @property
    def significant(self) -> bool:
        return self.better is not None and self.p < 0.05


def compare_page(*, test_set: TestSet, query: Mapping[str, str]) -> ComparePage:
    """Everything the page shows; ``page.error`` says why a bad query shows nothing more."""
    systems = {s.name: s for s in System.objects.filter(test_set=test_set).order_by("name")}
    page = ComparePage(
        test_set=test_set, systems=list(systems), settings=score_columns(test_set=test_set)
    )
    try:
        _fill(page, systems, query)
    except CompareError as error:
        page.error = str(error)
    return page


def _fill(page: ComparePage, systems: dict[str, System], query: Mapping[str, str]) -> None:
    names = page.systems
    if len(names) < 2:
        raise CompareError(TOO_FEW_SYSTEMS.format(name=page.test_set.name))
    if not page.settings:
        raise CompareError(NO_SETTINGS.format(name=page.test_set.name))
    page.a = query.get("a") or names[0]
    page.b = query.get("b") or names[1]
    for name in (page.a, page.b):
        if name not in systems:
            raise CompareError(UNKNOWN_SYSTEM.format(name=name, known=", ".join(names)))
    if page.a == page.b:
        raise CompareError(SAME_SYSTEM.format(name=page.a))
    by_signature = {column.signature: column for column in page.settings}
    signature = query.get("signature") or page.settings[0].signature
    if signature not in by_signature:
        known = ", ".join(column.label for column in page.settings)
        raise CompareError(UNKNOWN_SIGNATURE.format(signature=signature, known=known))
    page.setting = setting = by_signature[signature]
    system_a, system_b = systems[page.a], systems[page.b]

    corpus = dict(
        SystemScore.objects.filter(
            test_set=page.test_set, signature=signature, system__in=[system_a, system_b]
        ).values_list("system_id", "score")
    )
    page.corpus_a, page.corpus_b = corpus.get(system_a.pk), corpus.get(system_b.pk)

    arrays = segment_arrays(
        test_set=page.test_set, signature=signature, system_ids=[system_a.pk, system_b.pk]
    )
    for system in (system_a, system_b):
        if system.pk not in arrays:
            raise CompareError(NOT_STORED.format(name=system.name, label=setting.label))
    scores_a = arrays[system_a.pk].sentence_scores
    scores_b = arrays[system_b.pk].sentence_scores
    sign = 1.0 if setting.higher_is_better else -1.0

    common = [
        index
        for index in range(min(len(scores_a), len(scores_b)))
        if math.isfinite(scores_a[index]) and math.isfinite(scores_b[index])
    ]
    # Keys "a" and "b" keep the order of the pair (paired_bootstrap sorts systems by name).
    test = paired_bootstrap(
        {
            "a": {str(k): float(scores_a[k]) for k in common},
            "b": {str(k): float(scores_b[k]) for k in common},
        },
        {str(k): 1.0 for k in common},
        samples=SAMPLES,
        seed=DEFAULT_SEED,
    )[0]
    page.difference = -sign * test.difference if math.isfinite(test.difference) else None
    page.p, page.n = test.p, test.n

    segments = dict(
        Segment.objects.filter(test_set=page.test_set).values_list("index", "pk").order_by("index")
    )
    texts: dict[int, dict[int, str]] = defaultdict(dict)
    for system_id, segment_id, text in Candidate.objects.filter(
        system__in=[system_a, system_b]
    ).values_list("system_id", "segment_id", "text"):
        texts[system_id][segment_id] = text
    rows = []
    for index in common:
        pk = segments.get(index)
        a, b = float(scores_a[index]), float(scores_b[index])
        rows.append(
            SegmentRow(
                number=index + 1,
                score_a=a,
                score_b=b,
                difference=sign * (b - a),
                text_a=texts[system_a.pk].get(pk, ""),
                text_b=texts[system_b.pk].get(pk, ""),
            )
        )
    ranked = sorted(rows, key=lambda row: (-row.difference, row.number))
    page.b_better = [row for row in ranked if row.difference > 0][:TOP_SEGMENTS]
    ranked = sorted(rows, key=lambda row: (row.difference, row.number))
    page.a_better = [row for row in ranked if row.difference < 0][:TOP_SEGMENTS]

    references: dict[int, list[str]] = defaultdict(list)
    for segment_id, text in (
        Reference.objects.filter(segment__test_set=page.test_set)
        .order_by("label")
        .values_list("segment_id", "text")
    ):
        references[segment_id].append(text)
    triples = [
        (texts[system_a.pk].get(pk, ""), texts[system_b.pk].get(pk, ""), references.get(pk, []))
        for _, pk in sorted(segments.items())
    ]
    page.ngrams = [
        NgramOrder(order, only_a, only_b)
        for order, (only_a, only_b) in confirmed_differences(triples).items()
    ]
