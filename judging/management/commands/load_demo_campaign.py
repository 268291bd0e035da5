"""python manage.py load_demo_campaign: a ready judging campaign on the demo corpus (once).

Judges judge1 and judge2 each score every candidate of 20 sampled segments of three systems
plus the reference as a system; run ``load_demo`` first.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from evaltrans.corpora.management.commands.load_demo_corpus import DEMO_NAME
from evaltrans.corpora.models import TestSet
from judging.models import Campaign
from judging.services import CampaignError, campaign_create

DEMO_CAMPAIGN = "Demo: TED en-de fluency and adequacy"
DEMO_JUDGES = ["judge1", "judge2"]
DEMO_SYSTEMS = ["Facebook-AI", "Online-W", "metricsystem1"]
DEMO_SEED = 2005


class Command(BaseCommand):
    help = "Create a small demo judging campaign for judge1 and judge2 (skips if it exists)."

    def handle(self, *args: Any, **options: Any) -> None:
        if Campaign.objects.filter(name=DEMO_CAMPAIGN).exists():
            self.stdout.write(f"Demo campaign {DEMO_CAMPAIGN!r} already exists.")
            return
        test_set = TestSet.objects.filter(name=DEMO_NAME).order_by("-version").first()
        if test_set is None:
            raise CommandError(f"Load the demo corpus first: {DEMO_NAME!r} is missing.")
        judges = list(get_user_model().objects.filter(username__in=DEMO_JUDGES))
        systems = list(test_set.systems.filter(name__in=DEMO_SYSTEMS))
        labels = test_set.metadata.get("reference_labels") or []
        try:
            campaign = campaign_create(
                name=DEMO_CAMPAIGN,
                test_set=test_set,
                systems=systems,
                judges=judges,
                reference_as_system=labels[0] if labels else "",
                segment_sample=20,
                repeat_share=0.1,
                seed=DEMO_SEED,
            )
        except CampaignError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(self.style.SUCCESS(f"Created demo campaign {campaign.name!r}."))
