"""HTER of a post-editing campaign's systems: TER of each candidate against the post-edits of
that very (segment, system) (``metrics.core.hter``), the targeted references coming from
``judging.selectors.campaign_targeted_references``.

Why not a measure of the run machinery: a run computes every measure against the test set's
references, one set per *segment* shared by all systems, keyed by (test-set version, system,
signature) and never recomputed. Targeted references are per (segment, *system*) and grow as
judges post-edit, so an HTER run would need per-system references in the chunk tasks and a
content hash of the post-edits in its key. Until the runs carry that, HTER is computed on
demand here (it is cheap: one TER per post-edited segment), with a signature that names the
campaign (``hter|pe:<campaign>|nrefs:…|…``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from judging.models import Campaign
from judging.selectors import TargetedSegment, campaign_targeted_references
from metrics.core.hter import HterResult, hter

NOT_POSTEDIT = "campaign {name!r} is a {protocol} campaign, not a post-editing one"
NO_CAMPAIGN = "no campaign named {name!r}"


class HterError(LookupError):
    """No such post-editing campaign; the message is for users."""


@dataclass(frozen=True)
class SystemHter:
    system: str
    result: HterResult
    segments: list[TargetedSegment]

    def as_dict(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "hter": self.result.score,
            "signature": str(self.result.signature),
            "edits": self.result.details["edits"],
            "ref_length": self.result.details["ref_length"],
            "segments": [
                {
                    "segment_index": segment.segment_index,
                    "doc_id": segment.doc_id,
                    "seg_id": segment.seg_id,
                    "hter": score,
                    "edits": edits,
                    "ref_length": length,
                    "post_edits": len(segment.post_edits),
                }
                for segment, score, (edits, length) in zip(
                    self.segments, self.result.sentences, self.result.statistics, strict=True
                )
            ],
        }


def postedit_campaign_by_name(name: str) -> Campaign:
    """The post-editing campaign called ``name``.

    Raises:
        HterError: no such campaign, or one of another protocol.
    """
    campaign = Campaign.objects.filter(name=name).first()
    if campaign is None:
        raise HterError(NO_CAMPAIGN.format(name=name))
    if not campaign.is_postedit:
        raise HterError(NOT_POSTEDIT.format(name=name, protocol=campaign.protocol))
    return campaign


def campaign_hter(*, campaign: Campaign, **ter_options: Any) -> list[SystemHter]:
    """Per system (by name), HTER over the segments it has post-edits for, and per segment.
    ``ter_options`` are TER's (default: tercom's, as sacreBLEU's ``TER()``)."""
    by_system: dict[str, list[TargetedSegment]] = defaultdict(list)
    for segment in campaign_targeted_references(campaign=campaign):
        by_system[segment.system].append(segment)
    return [
        SystemHter(
            system=system,
            result=hter(
                [segment.candidate for segment in segments],
                [list(segment.post_edits) for segment in segments],
                source=campaign.name,
                **ter_options,
            ),
            segments=segments,
        )
        for system, segments in sorted(by_system.items())
    ]
