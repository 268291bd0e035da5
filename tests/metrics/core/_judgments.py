"""A minimal judgment for the human-score tests (``human_scores`` accepts anything with
these attributes: ``metrics.core.human_scores.JudgmentLike``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class J:
    system: str
    segment_id: str
    judge: str
    aspect: str
    raw: float | None
    z_given: float | None = None
    kind: str = "SYSTEM"
