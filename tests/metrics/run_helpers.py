"""Helpers shared by the metric-run tests: small test sets built directly with the ORM."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from evaltrans.corpora.models import Candidate, Reference, Segment, System, TestSet
from metrics import measure_choices
from metrics.services import computation

REFERENCES = [
    "the cat sat on the mat",
    "there is a dog in the garden",
    "we have been there before",
    "he reads a long book every evening",
    "the weather is nice today",
    "she will meet us at noon in the lobby",
    "all the children were playing outside",
    "this is a short sentence",
]
OUTPUTS = {
    "sys-a": [
        "the cat sat on mat",
        "there is dog in the garden",
        "we were there before",
        "he reads a book every evening",
        "weather is nice today",
        "she meets us at noon in lobby",
        "all children were playing outside",
        "this is short sentence",
    ],
    "sys-b": [
        "a cat is sitting on the mat",
        "a dog is in the garden",
        "we have been there",
        "every evening he reads a long book",
        "the weather today is nice",
        "she will meet us in the lobby at noon",
        "the children played outside",
        "this is a short sentence",
    ],
}


def make_test_set(
    name: str = "tiny",
    references: Sequence[str] = REFERENCES,
    outputs: dict[str, Sequence[str]] | None = None,
    second_references: Sequence[str] | None = None,
    version: int = 1,
) -> TestSet:
    """A test set with one segment per reference and one system per entry of ``outputs``."""
    computation.caches_clear()
    outputs = OUTPUTS if outputs is None else outputs
    labels = ["A"] + (["B"] if second_references is not None else [])
    test_set = TestSet.objects.create(
        name=name,
        version=version,
        content_hash=uuid.uuid4().hex,
        source_lang="en",
        target_lang="en",
        import_format="text",
        metadata={"reference_labels": labels},
    )
    segments = Segment.objects.bulk_create(
        Segment(test_set=test_set, index=k, source=f"source {k}") for k in range(len(references))
    )
    Reference.objects.bulk_create(
        Reference(segment=segment, label="A", text=text)
        for segment, text in zip(segments, references, strict=True)
    )
    if second_references is not None:
        Reference.objects.bulk_create(
            Reference(segment=segment, label="B", text=text)
            for segment, text in zip(segments, second_references, strict=True)
        )
    for system_name, texts in outputs.items():
        system = System.objects.create(test_set=test_set, name=system_name)
        Candidate.objects.bulk_create(
            Candidate(system=system, segment=segment, text=text)
            for segment, text in zip(segments, texts, strict=True)
        )
    return test_set


def choices(*names: str, **options: dict) -> list[measure_choices.MeasureChoice]:
    return [measure_choices.MeasureChoice(name, dict(options.get(name, {}))) for name in names]
