"""HTER: TER of a system's candidate against human post-edits of that very candidate.

Snover et al. (AMTA 2006), "human-targeted TER": a human edits the MT output into a correct
translation with as few changes as needed; the edited text is a *targeted reference* of that
(segment, system) only. HTER is TER (:class:`~metrics.core.ter.TER`, sacreBLEU semantics,
same options) with the targeted references in place of the test set's references: several
post-edits of one (segment, system) are several references (the fewest edits over the average
length of the post-edits, as tercom), and the corpus score is the sum of the edits over the
sum of those lengths, in percent.

Pure: the references come in as data, per (segment, system). :class:`HTER` is a measure of
the registry: a run takes its references from the post-editing campaign named by the option
``post-edits`` (``metrics.services`` looks them up), and the command line from ``--ref`` files
of post-edits. A segment without a post-edit (an empty reference list) is left out: its
sentence score is NaN and it adds nothing to the corpus sums (the statistic ``post_edited``
counts the segments that count). Who supplied the post-edits and which of them were used are in
the signature (``pe:<campaign>``, ``pev:<fingerprint>``): the same candidates get another HTER
from other post-editors, or once more segments are post-edited.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from .base import MeasureError, Option, Score, Signature, Statistics
from .ter import TER

ERROR_NO_POSTEDIT = "HTER: segment {index} has no post-edit (targeted reference)."

FINGERPRINT_DIGITS = 12
"""Hex digits of the post-edits' fingerprint in signatures (48 bits: a collision between two
states of one campaign's post-edits is not a practical concern)."""


def postedits_fingerprint(targeted: Iterable[tuple[str, int, Sequence[str]]]) -> str:
    """A short hash of a campaign's targeted references: ``(system, segment index,
    post-edits)`` triples, in any order. Equal exactly when the same post-edits stand for the
    same (segment, system)s."""
    rows = sorted((system, index, list(edits)) for system, index, edits in targeted)
    digest = hashlib.sha256(json.dumps(rows, ensure_ascii=False).encode("utf-8"))
    return digest.hexdigest()[:FINGERPRINT_DIGITS]


class HTER(TER):
    """TER against targeted references (post-edits of each candidate), in percent."""

    name = "hter"
    description = (
        "Human-targeted TER: TER against post-edits of each (segment, system) from a "
        "post-editing campaign (Snover et al. 2006)."
    )
    options = {
        "post-edits": Option(
            "",
            "The post-editing campaign whose post-edits are the targeted references.",
            short="pe",
        ),
        "post-edits-version": Option(
            "",
            "Fingerprint of the post-edits used (filled in by the run).",
            short="pev",
        ),
        **TER.options,
    }
    stat_names = ("distance", "ref_length", "post_edited")
    targeted_references = True
    run_filled_options = frozenset({"post-edits-version"})

    _TER_KEYS: ClassVar[tuple[str, ...]] = tuple(TER.options)

    def ter(self) -> TER:
        """The TER these options make (the same tokenization and case)."""
        return TER(**{key: self.values[key] for key in self._TER_KEYS})

    def statistics(
        self,
        hypotheses: Sequence[str],
        references: Sequence[Sequence[str]],
        context: Any = None,
    ) -> Statistics:
        rows = np.zeros((len(hypotheses), len(self.stat_names)))
        rows[:, :2] = np.asarray(self.ter().statistics(hypotheses, references)).reshape(-1, 2)
        rows[:, 2] = [1.0 if refs else 0.0 for refs in references]
        return rows

    def sentence_scores(self, stats: Statistics) -> npt.NDArray[np.float64]:
        return np.array(
            [self.rate(row[0], row[1]) if row[2] else math.nan for row in stats],
            dtype=np.float64,
        )

    def aggregate(self, stats: Statistics, n_refs: int = 1) -> Score:
        total = stats.sum(axis=0) if len(stats) else np.zeros(len(self.stat_names))
        distance, ref_length, edited = float(total[0]), float(total[1]), int(total[2])
        score = self.rate(distance, ref_length) if edited else math.nan
        details = {
            "distance": distance,
            "ref_length": ref_length,
            "segments": len(stats),
            "post_edited": edited,
        }
        return Score(self.name, score, self.signature(n_refs), details)

    def signature_value(self, key: str) -> str | None:
        if key in ("post-edits", "post-edits-version"):
            return str(self.values[key]) or "-"
        return super().signature_value(key)

    def command_line_values(self) -> dict[str, Any]:
        values = super().command_line_values()
        for key in self.run_filled_options:
            values.pop(key, None)
        return values


@dataclass(frozen=True)
class HterResult:
    """HTER of one system: the corpus score (percent), one score per segment (percent), the
    per-segment (edits, average post-edit length) and the signature."""

    score: float
    sentences: list[float]
    statistics: list[tuple[float, float]]
    signature: Signature
    details: dict[str, Any] = field(default_factory=dict)

    def as_score(self) -> Score:
        return Score("hter", self.score, self.signature, dict(self.details))


def hter(
    candidates: Sequence[str],
    post_edits: Sequence[Sequence[str]],
    *,
    source: str = "",
    version: str = "",
    **ter_options: Any,
) -> HterResult:
    """HTER of one system's candidates, every one of them post-edited.

    Args:
        candidates: the system's output, one text per segment.
        post_edits: per segment, the post-edits of that very candidate (one or more).
        source: where the post-edits come from (a campaign name), for the signature.
        version: the fingerprint of the campaign's post-edits (:func:`postedits_fingerprint`),
            for the signature; a run of the campaign's HTER signs its results alike.
        ter_options: options of :class:`~metrics.core.ter.TER` (default: tercom's, as
            sacreBLEU's ``TER()``: lowercased, no normalisation).

    Raises:
        MeasureError: a segment without post-edit, or lengths that differ.
    """
    if len(candidates) != len(post_edits):
        raise MeasureError(
            f"HTER: {len(candidates)} candidates but {len(post_edits)} sets of post-edits"
        )
    for index, edits in enumerate(post_edits):
        if not edits:
            raise MeasureError(ERROR_NO_POSTEDIT.format(index=index))
    measure = HTER(post_edits=source, post_edits_version=version, **ter_options)
    stats = measure.statistics(candidates, post_edits)
    n_refs = max((len(edits) for edits in post_edits), default=0)
    score = measure.aggregate(stats, n_refs=n_refs)
    return HterResult(
        score=score.score,
        sentences=[float(value) for value in measure.sentence_scores(stats)],
        statistics=[(float(row[0]), float(row[1])) for row in stats],
        signature=score.signature,
        details={
            "edits": score.details["distance"],
            "ref_length": score.details["ref_length"],
            "segments": len(stats),
        },
    )
