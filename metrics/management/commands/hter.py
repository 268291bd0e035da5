"""python manage.py hter --campaign NAME [--json] [--case-sensitive] [--normalized] …

HTER of a post-editing campaign: per system and per segment, TER (``metrics.core.ter``, equal
to sacreBLEU's) of each candidate against the post-edits of that (segment, system). Why this
is a command and not a measure of a run: ``metrics.selectors.hter``.
"""

from __future__ import annotations

import json
import math

from django.core.management.base import BaseCommand, CommandError, CommandParser

from metrics.selectors.hter import HterError, campaign_hter, postedit_campaign_by_name


class Command(BaseCommand):
    help = "HTER of a post-editing campaign's systems, against their post-edits."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--campaign", required=True, help="the post-editing campaign's name")
        parser.add_argument("--json", action="store_true", help="JSON instead of a table")
        parser.add_argument("--segments", action="store_true", help="table: also per segment")
        for flag, text in (
            ("--case-sensitive", "keep case (tercom lowercases by default)"),
            ("--normalized", "tercom normalisation: split punctuation"),
            ("--no-punct", "remove punctuation first"),
            ("--asian-support", "split CJK characters (with --normalized/--no-punct)"),
        ):
            parser.add_argument(flag, action="store_true", help=text)

    def handle(self, *args: object, **options: object) -> None:
        try:
            campaign = postedit_campaign_by_name(str(options["campaign"]))
        except HterError as error:
            raise CommandError(str(error)) from error
        ter_options = {
            key: bool(options[key.replace("-", "_")])
            for key in ("case-sensitive", "normalized", "no-punct", "asian-support")
        }
        systems = campaign_hter(campaign=campaign, **ter_options)
        if options["json"]:
            document = {
                "campaign": campaign.name,
                "systems": [system.as_dict() for system in systems],
            }
            self.stdout.write(json.dumps(document, ensure_ascii=False, indent=1))
            return
        if not systems:
            self.stdout.write(f"{campaign.name}: no post-edits yet")
            return
        width = max(len(system.system) for system in systems)
        self.stdout.write(f"{'system':<{width}}  {'HTER':>7}  {'segments':>8}  signature")
        for system in systems:
            self.stdout.write(
                f"{system.system:<{width}}  {_number(system.result.score):>7}  "
                f"{len(system.segments):>8}  {system.result.signature}"
            )
            if options["segments"]:
                for segment, score in zip(system.segments, system.result.sentences, strict=True):
                    label = segment.seg_id or str(segment.segment_index + 1)
                    self.stdout.write(f"  {segment.doc_id}:{label}  {_number(score)}")


def _number(value: float) -> str:
    return "–" if math.isnan(value) else f"{value:.2f}"
