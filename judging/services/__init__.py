"""Writes of the judging app (HackSoft services), re-exported per subdomain."""

from .campaigns import CampaignError, campaign_create
from .judgments import JudgingError, SubmitResult, screen_submit

__all__ = [
    "CampaignError",
    "JudgingError",
    "SubmitResult",
    "campaign_create",
    "screen_submit",
]
