"""Test sets and their texts as runs read them: sources, references, system candidates.

The one reader of these texts for computing chunks, reports and anything else that scores
them: references come in the test set's label order (the order the chunk tasks score them in,
so ``<reference nr="r">`` and ``<reference-distance nr="r">`` name the same reference), and a
missing candidate counts as an empty text.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Count, Max

from evaltrans.corpora.models import Candidate, Reference, TestSet
from evaltrans.corpora.selectors import testset_reference_labels


def testset_by_name(*, name: str, version: int | None = None) -> TestSet | None:
    """A test set by name: the given version, or the latest."""
    test_sets = TestSet.objects.filter(name=name)
    if version is not None:
        return test_sets.filter(version=version).first()
    return test_sets.order_by("-version").first()


def testset_reference_count(*, test_set: TestSet) -> int:
    """Largest number of references of any segment (the ``nrefs`` of signatures)."""
    counts = (
        Reference.objects.filter(segment__test_set=test_set)
        .values("segment_id")
        .annotate(n=Count("id"))
        .aggregate(most=Max("n"))
    )
    return int(counts["most"] or 0)


def _references(test_set: TestSet, count: int) -> list[list[str]]:
    rank = {label: n for n, label in enumerate(testset_reference_labels(test_set=test_set))}
    collected: list[list[tuple[int, str]]] = [[] for _ in range(count)]
    for index, label, text in Reference.objects.filter(segment__test_set=test_set).values_list(
        "segment__index", "label", "text"
    ):
        collected[index].append((rank.get(label, len(rank)), text))
    return [[text for _, text in sorted(refs, key=lambda item: item[0])] for refs in collected]


def testset_references(*, test_set: TestSet) -> list[list[str]]:
    """``references[k]``: the reference texts of segment k, in the test set's label order."""
    return _references(test_set, test_set.segments.count())


def testset_texts(*, test_set: TestSet) -> tuple[list[str], list[list[str]]]:
    """Sources and references of every segment, in segment order."""
    sources = list(test_set.segments.order_by("index").values_list("source", flat=True))
    return sources, _references(test_set, len(sources))


def system_candidates(*, system_ids: Iterable[int], start: int, stop: int) -> dict[int, list[str]]:
    """Candidate texts of segments [start, stop) per system id, in segment order (one query)."""
    texts = {system_id: [""] * (stop - start) for system_id in system_ids}
    for system_id, index, text in (
        Candidate.objects.filter(
            system_id__in=list(texts), segment__index__gte=start, segment__index__lt=stop
        )
        .order_by()  # filled in by index: the default order only adds joins and a sort
        .values_list("system_id", "segment__index", "text")
    ):
        texts[system_id][index - start] = text
    return texts
