"""HTER of a post-editing campaign's systems: TER of each candidate against the post-edits of
that very (segment, system) (``metrics.core.hter``), the targeted references coming from
``judging.selectors.campaign_targeted_references``.

Two ways to it: on demand here (the campaign page and ``manage.py hter``: every system with
post-edits, over the segments post-edited), and as the measure ``hter`` of a run (any chosen
systems, every segment of the test set, stored and correlated like any measure; the run
service loads :func:`campaign_targeted` once per chunk). Both sign their results alike:
``hter|nrefs:…|pe:<campaign>|pev:<fingerprint of the post-edits>|…``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from evaltrans.corpora.models import TestSet
from judging.models import Campaign
from judging.selectors import (
    TargetedSegment,
    campaign_targeted_references,
    targeted_fingerprint,
)
from metrics.core.hter import HterResult, hter

NOT_POSTEDIT = "campaign {name!r} is a {protocol} campaign, not a post-editing one"
NO_CAMPAIGN = "no campaign named {name!r}"
NO_CAMPAIGN_NAMED = (
    "HTER needs the post-editing campaign whose post-edits are its references: "
    "give its name (option post-edits)"
)
OTHER_TEST_SET = "campaign {name!r} judges test set {other}, not {test_set}"
NO_POSTEDITS = "campaign {name!r} has no post-edits yet"


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


def testset_postedit_campaign(*, test_set: TestSet, name: str) -> Campaign:
    """The post-editing campaign called ``name`` on ``test_set`` (the references of a run's
    HTER).

    Raises:
        HterError: no name, no such campaign, another protocol or another test set.
    """
    if not name:
        raise HterError(NO_CAMPAIGN_NAMED)
    campaign = postedit_campaign_by_name(name)
    if campaign.test_set_id != test_set.pk:
        raise HterError(
            OTHER_TEST_SET.format(name=name, other=campaign.test_set, test_set=test_set)
        )
    return campaign


def testset_postedit_campaign_names(*, test_set: TestSet) -> list[str]:
    """Names of the post-editing campaigns of a test set (the run form's choices)."""
    return list(
        Campaign.objects.filter(test_set=test_set, protocol=Campaign.Protocol.POST_EDIT)
        .order_by("name")
        .values_list("name", flat=True)
    )


@dataclass(frozen=True)
class TargetedReferences:
    """A campaign's post-edits as a run's references: per system name, segment index → the
    post-edits of that (segment, system)."""

    campaign: Campaign
    by_system: dict[str, dict[int, tuple[str, ...]]]
    fingerprint: str

    @property
    def n_refs(self) -> int:
        """Most post-edits of one (segment, system): the ``nrefs`` of the signature."""
        return max(
            (len(edits) for segments in self.by_system.values() for edits in segments.values()),
            default=0,
        )

    def references(self, *, system: str, start: int, stop: int) -> list[list[str]]:
        """Per segment of [start, stop), the system's post-edits (empty: not post-edited)."""
        segments = self.by_system.get(system, {})
        return [list(segments.get(index, ())) for index in range(start, stop)]


def campaign_targeted(*, campaign: Campaign) -> TargetedReferences:
    """The campaign's post-edits by system and segment, with their fingerprint."""
    targeted = campaign_targeted_references(campaign=campaign)
    by_system: dict[str, dict[int, tuple[str, ...]]] = defaultdict(dict)
    for segment in targeted:
        by_system[segment.system][segment.segment_index] = segment.post_edits
    return TargetedReferences(campaign, dict(by_system), targeted_fingerprint(targeted))


def campaign_hter(*, campaign: Campaign, **ter_options: Any) -> list[SystemHter]:
    """Per system (by name), HTER over the segments it has post-edits for, and per segment.
    ``ter_options`` are TER's (default: tercom's, as sacreBLEU's ``TER()``)."""
    by_system: dict[str, list[TargetedSegment]] = defaultdict(list)
    for segment in campaign_targeted_references(campaign=campaign):
        by_system[segment.system].append(segment)
    version = targeted_fingerprint(segment for rows in by_system.values() for segment in rows)
    return [
        SystemHter(
            system=system,
            result=hter(
                [segment.candidate for segment in segments],
                [list(segment.post_edits) for segment in segments],
                source=campaign.name,
                version=version,
                **ter_options,
            ),
            segments=segments,
        )
        for system, segments in sorted(by_system.items())
    ]
