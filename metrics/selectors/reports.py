"""Reads for the EvalTrans XML report: a run's scores, options and signatures as plain data.

``run_report_data`` gathers what ``metrics.reports.report_xml`` writes; nothing here writes XML.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt
from django.conf import settings

from metrics.core import get_metric
from metrics.core.base import VERSION, Measure
from metrics.models import MetricRun, RunMeasure
from metrics.reports import ReportData, ReportMeasure, ReportSentence, ReportSystem
from metrics.selectors.runs import SegmentArrays, run_score_details, segment_arrays
from metrics.selectors.texts import system_candidates, testset_texts


def run_report_data(
    *,
    run: MetricRun,
    author: str = "",
    sentences_in_detail: bool = False,
    include_sentences: bool = False,
) -> ReportData:
    """Plain data for ``metrics.reports.report_xml``: scores, options, signatures, test set.

    ``sentences_in_detail`` adds per-sentence scores and statistics (spec §15 flag), and for
    distance measures the distance to each reference (``<reference-distance>``): taken from
    the stored statistics when the test set has one reference, computed again per reference
    when it has several. ``include_sentences`` adds the texts as well.
    """
    test_set = run.test_set
    measures = list(run.measures.all())
    systems = list(run.systems.order_by("name"))
    stored = run_score_details(run=run)
    sources, references = testset_texts(test_set=test_set)
    candidates = system_candidates(
        system_ids=[system.pk for system in systems], start=0, stop=run.segment_count
    )
    arrays: dict[str, dict[int, SegmentArrays]] = {}
    if sentences_in_detail:
        arrays = {
            item.signature: segment_arrays(
                test_set=test_set, signature=item.signature, system_ids=[s.pk for s in systems]
            )
            for item in measures
        }
    report_systems = []
    for system in systems:
        scores = {}
        for item in measures:
            found = stored.get((system.pk, item.signature))
            scores[item.signature] = (
                (found.score, found.details) if found is not None else (None, {})
            )
        texts = candidates.get(system.pk, [""] * run.segment_count)
        sentences = None
        if sentences_in_detail:
            sentences = [
                ReportSentence(
                    index=index,
                    source=sources[index] if include_sentences else "",
                    candidate=texts[index] if include_sentences else "",
                    references=references[index] if include_sentences else [],
                    scores={},
                )
                for index in range(run.segment_count)
            ]
            for item in measures:
                found = arrays[item.signature].get(system.pk)
                if found is not None:
                    _add_sentence_numbers(sentences, item, found, texts, references)
        report_systems.append(
            ReportSystem(
                name=system.name,
                scores=scores,
                statistics=_candidate_statistics(run, texts, references),
                sentences=sentences,
            )
        )
    version = getattr(settings, "EVALTRANS_VERSION", "") or "0.1.0"
    finished = run.finished_at or run.created_at
    return ReportData(
        author=author or (run.created_by.get_username() if run.created_by else ""),
        date=finished.isoformat(timespec="seconds"),
        software=f"evaltrans {version}; measures version {VERSION}; run {run.pk}",
        test_set={
            "name": test_set.name,
            "version": test_set.version,
            "content_hash": test_set.content_hash,
            "source_lang": test_set.source_lang,
            "target_lang": test_set.target_lang,
            "segments": run.segment_count,
            "references": run.n_refs,
        },
        measures=[
            ReportMeasure(item.measure, item.signature, dict(item.options)) for item in measures
        ],
        systems=report_systems,
        comment=run.comment,
        command_line=run.command_line,
        include_sentences=include_sentences,
    )


def _candidate_statistics(
    run: MetricRun, candidates: list[str], references: list[list[str]]
) -> dict[str, Any]:
    """Spec §17.2: sentences K, I_tot, references and the average reference length.

    Lengths count whitespace-separated tokens of the stored texts; the reference length is
    Σ_k of the mean length of segment k's references, comparable with I_tot.
    """
    return {
        "sentences": run.segment_count,
        "candidate_length": sum(len(text.split()) for text in candidates),
        "references": run.n_refs,
        "average_reference_length": math.fsum(
            sum(len(text.split()) for text in refs) / len(refs) for refs in references if refs
        ),
    }


def _add_sentence_numbers(
    sentences: list[ReportSentence],
    item: RunMeasure,
    found: SegmentArrays,
    candidates: list[str],
    references: list[list[str]],
) -> None:
    """One measure's sentence scores, statistics and reference distances, in place."""
    distances = None
    if tuple(found.stat_names[:2]) == ("distance", "ref_length"):
        measure = get_metric(item.measure)(**item.options)
        distances = _reference_distances(measure, candidates, references, found.stats)
    for index, sentence in enumerate(sentences):
        value = float(found.sentence_scores[index])
        sentence.scores[item.signature] = None if math.isnan(value) else value
        sentence.stats[item.signature] = dict(
            zip(found.stat_names, (float(x) for x in found.stats[index]), strict=False)
        )
        if distances is not None:
            sentence.reference_distances[item.signature] = distances[index]


def _reference_distances(
    measure: Measure,
    candidates: list[str],
    references: list[list[str]],
    stats: npt.NDArray[np.float64],
) -> list[list[tuple[int, float, float]]]:
    """(reference number, distance, length) of every reference of every segment.

    With one reference per segment the stored (d_k, L*_k) are that reference's (every
    length rule agrees); with more, the measure is computed once per reference number.
    """
    if max((len(refs) for refs in references), default=0) <= 1:
        return [
            [(0, float(row[0]), float(row[1]))] if refs else []
            for row, refs in zip(stats, references, strict=True)
        ]
    result: list[list[tuple[int, float, float]]] = [[] for _ in references]
    for number in range(max(len(refs) for refs in references)):
        single = [[refs[number]] if number < len(refs) else [] for refs in references]
        rows = measure.statistics(candidates, single, None)
        for index, refs in enumerate(single):
            if refs:
                result[index].append((number, float(rows[index][0]), float(rows[index][1])))
    return result
