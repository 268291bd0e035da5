"""Writes of scores from elsewhere: a measure computed outside evaltrans, stored beside ours.

The files are parsed and checked first (``metrics.external_scores``, no database); then, in one
transaction, the scores go into the tables every reader already knows: one ``SystemScore`` per
system with the signature ``NAME|external:DECLARED`` and, when sentence scores were given, one
``SegmentStatistics`` row per system covering every segment (no sufficient statistics, only
``sentence_scores``). The correlation command and dashboards then list the measure like any
other stored setting. Importing the same name and declared signature again replaces the scores
stored under them; bad input stores nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.utils import timezone

from evaltrans.corpora.formats.base import InputFile
from evaltrans.corpora.models import System, TestSet
from metrics.external_scores import (
    check_name,
    check_signature,
    external_scores_parse,
    external_signature,
)
from metrics.models import SegmentStatistics, SystemScore, pack_floats


@dataclass(frozen=True)
class ExternalImportResult:
    """What an import stored; ``summary`` is the line shown to the user."""

    test_set: TestSet
    measure: str
    signature: str
    higher_is_better: bool
    systems: int
    segments: int
    replaced: bool
    summary: str


def external_scores_import(
    *,
    test_set: TestSet,
    name: str,
    declared_signature: str | None,
    higher_is_better: bool,
    seg_file: InputFile | None = None,
    sys_file: InputFile | None = None,
    tsv_file: InputFile | None = None,
    user: AbstractBaseUser | AnonymousUser | None = None,
) -> ExternalImportResult:
    """Import the scores of an external measure for every system of ``test_set``.

    Raises:
        ExternalScoresError: bad or built-in name, bad signature, no file, files that do not
            go together.
        CorpusFormatError: anything wrong inside a file (file and line named).
    """
    name = check_name(name)
    declared = check_signature(declared_signature)
    signature = external_signature(name, declared)
    system_ids = dict(System.objects.filter(test_set=test_set).values_list("name", "pk"))
    segment_count = test_set.segments.count()
    parsed = external_scores_parse(
        systems=sorted(system_ids),
        segment_count=segment_count,
        seg_file=seg_file,
        sys_file=sys_file,
        tsv_file=tsv_file,
    )
    details = {
        "external": True,
        "file": ", ".join(parsed.files.values()),
        "declared": declared,
        "formats": list(parsed.files),
        "system_level": parsed.system_level_source,
    }
    if user is not None and user.is_authenticated:
        details["imported_by"] = user.get_username()
    now = timezone.now()
    sentences = parsed.sentence_scores
    scores = []
    for system, value in parsed.system_scores.items():
        scored = sum(not math.isnan(v) for v in sentences[system]) if sentences else 0
        scores.append(
            SystemScore(
                test_set=test_set,
                system_id=system_ids[system],
                signature=signature,
                measure=name,
                score=None if math.isnan(value) else value,
                higher_is_better=higher_is_better,
                details=details,
                segment_count=scored if sentences else segment_count,
                computed_at=now,
            )
        )
    rows = [
        SegmentStatistics(
            test_set=test_set,
            system_id=system_ids[system],
            signature=signature,
            measure=name,
            start=0,
            stop=segment_count,
            stat_names=[],
            stats=b"",
            sentence_scores=pack_floats(values),
            created_at=now,
        )
        for system, values in (sentences or {}).items()
    ]
    with transaction.atomic():
        # Serialize imports into one test set, so two imports of one signature cannot collide.
        list(TestSet.objects.select_for_update().filter(pk=test_set.pk).values_list("pk"))
        deleted, _ = SystemScore.objects.filter(test_set=test_set, signature=signature).delete()
        SegmentStatistics.objects.filter(test_set=test_set, signature=signature).delete()
        SystemScore.objects.bulk_create(scores)
        SegmentStatistics.objects.bulk_create(rows)
    return ExternalImportResult(
        test_set=test_set,
        measure=name,
        signature=signature,
        higher_is_better=higher_is_better,
        systems=len(scores),
        segments=segment_count if sentences else 0,
        replaced=bool(deleted),
        summary=_summary(
            test_set, name, declared, higher_is_better, parsed.files, len(scores), bool(deleted)
        ),
    )


def _summary(
    test_set: TestSet,
    name: str,
    declared: str,
    higher_is_better: bool,
    files: dict[str, str],
    systems: int,
    replaced: bool,
) -> str:
    direction = "higher is better" if higher_is_better else "lower is better"
    if "mtme-sys" in files and "mtme-seg" in files:
        level = f"system scores from {files['mtme-sys']}, sentence scores from {files['mtme-seg']}"
    elif "mtme-sys" in files:
        level = f"system scores only, from {files['mtme-sys']} (no sentence scores)"
    else:
        source = files.get("mtme-seg") or files["tsv"]
        level = f"sentence scores from {source}, system scores their mean"
    text = (
        f"Imported {name} (signature {declared!r}, {direction}) for {systems} "
        f"system{'' if systems == 1 else 's'} of {test_set}: {level}."
    )
    if replaced:
        text += " It replaces the scores imported before under this name and signature."
    return text
