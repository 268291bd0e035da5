"""HTER: TER of a system's candidate against human post-edits of that very candidate.

Snover et al. (AMTA 2006), "human-targeted TER": a human edits the MT output into a correct
translation with as few changes as needed; the edited text is a *targeted reference* of that
(segment, system) only. HTER is TER (:class:`~metrics.core.ter.TER`, sacreBLEU semantics,
same options) with the targeted references in place of the test set's references: several
post-edits of one (segment, system) are several references (the fewest edits over the average
length of the post-edits, as tercom), and the corpus score is the sum of the edits over the
sum of those lengths, in percent.

Pure: the references come in as data. Who supplies them (a post-editing campaign of
``judging``) is named in the signature (``pe:<campaign>``), since the same candidates get
another HTER from other post-editors.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .base import MeasureError, Score, Signature
from .ter import TER

ERROR_NO_POSTEDIT = "HTER: segment {index} has no post-edit (targeted reference)."


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


def hter_signature(ter: TER, n_refs: int, source: str) -> Signature:
    """TER's signature renamed ``hter``, with the source of the post-edits (``pe:``)."""
    params = tuple(ter.signature(n_refs).params)
    return Signature("hter", (("pe", source or "-"), *params))


def hter(
    candidates: Sequence[str],
    post_edits: Sequence[Sequence[str]],
    *,
    source: str = "",
    **ter_options: Any,
) -> HterResult:
    """HTER of one system's candidates against their post-edits.

    Args:
        candidates: the system's output, one text per segment.
        post_edits: per segment, the post-edits of that very candidate (one or more).
        source: where the post-edits come from (a campaign name), for the signature.
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
    ter = TER(**ter_options)
    stats = np.asarray(ter.statistics(candidates, post_edits), dtype=float).reshape(-1, 2)
    total = stats.sum(axis=0) if len(stats) else np.zeros(2)
    n_refs = max((len(edits) for edits in post_edits), default=0)
    return HterResult(
        score=ter.rate(float(total[0]), float(total[1])),
        sentences=[float(value) for value in ter.sentence_scores(stats)],
        statistics=[(float(row[0]), float(row[1])) for row in stats],
        signature=hter_signature(ter, n_refs, source),
        details={"edits": float(total[0]), "ref_length": float(total[1]), "segments": len(stats)},
    )
