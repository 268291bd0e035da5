"""python manage.py human_scores --name NAME [--aspect ASPECT] [--segments] [--json]
[--z-source auto|computed|given] [--wmt-rounding] (see docs/human-scores.md)."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from judging.humanscores.selectors import (
    HumanSourceError,
    human_source_by_name,
    source_human_scores,
)
from metrics.core.human_scores import (
    SD_CHOICES,
    STATISTIC_CHOICES,
    WEIGHTING_CHOICES,
    WMT_R_ROUNDING,
    Z_SOURCE_CHOICES,
    HumanScoresError,
)
from metrics.core.resampling import DEFAULT_SEED

NO_ASPECT = "{name!r} has no judgments"


class Command(BaseCommand):
    help = (
        "Human scores of a judgment set or campaign: per system (and segment), raw and normalized."
    )
    # A report reads and writes nothing else: Django's system checks (1.5 s of a 10 s command
    # here) are left to ``check``, ``migrate`` and the server.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--name", required=True, help="Judgment set or campaign name.")
        parser.add_argument(
            "--aspect", help="Aspect (default: the set's first; 'adequacy+fluency' for A+F)."
        )
        parser.add_argument("--segments", action="store_true", help="Also per segment.")
        parser.add_argument("--json", action="store_true", help="Print JSON.")
        parser.add_argument(
            "--weighting",
            choices=WEIGHTING_CHOICES,
            help="System score weights (default: reference length when attached to a test "
            "set, else none; reference and candidate need a test set).",
        )
        parser.add_argument("--statistic", choices=STATISTIC_CHOICES, default="mean")
        parser.add_argument("--sd", choices=SD_CHOICES, default="sample")
        parser.add_argument(
            "--z-source",
            choices=Z_SOURCE_CHOICES,
            default="auto",
            help="Where z comes from: computed (normalize the raw scores), given (the file's z, "
            "e.g. WMT's), or auto (default: computed when every judgment has a raw score).",
        )
        parser.add_argument(
            "--wmt-rounding",
            action="store_true",
            help="Round as WMT's R scripts did (judge mean and sd to 7 significant digits, each "
            "z and segment score to 15): reproduces WMT's DA files digit for digit.",
        )
        parser.add_argument("--bootstrap", type=int, default=1000, help="Resamples for the CIs.")
        parser.add_argument("--seed", type=int, default=DEFAULT_SEED)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            source = human_source_by_name(name=options["name"])
            if not source.records:
                raise CommandError(NO_ASPECT.format(name=source.name))
            aspect = options["aspect"] or source.score_aspects[0]
            scores = source_human_scores(
                source=source,
                aspect=aspect,
                weighting=options["weighting"],
                statistic=options["statistic"],
                sd=options["sd"],
                z_source=options["z_source"],
                rounding=WMT_R_ROUNDING if options["wmt_rounding"] else None,
                bootstrap_samples=options["bootstrap"],
                seed=options["seed"],
            )
        except (HumanSourceError, HumanScoresError) as error:
            raise CommandError(str(error)) from None
        result = {
            "name": source.name,
            "source": source.kind,
            "test_set": str(source.test_set) if source.test_set else None,
            **scores.as_dict(segments=options["segments"]),
        }
        if options["json"]:
            self.stdout.write(json.dumps(result, indent=2, ensure_ascii=False))
            return
        self._table(result)

    def _table(self, result: dict[str, Any]) -> None:
        self.stdout.write(f"{result['name']} · {result['aspect']} · {result['signature']}")
        self.stdout.write(f"{'system':<24} {'raw':>9} {'normalized':>11} {'n':>7}  95% CI (norm.)")
        for row in result["systems"]:
            ci = row["normalized_ci"]
            interval = f"[{ci['low']:+.3f}, {ci['high']:+.3f}]" if ci else "–"
            raw = f"{row['raw']:.3f}" if row["raw"] is not None else "–"
            self.stdout.write(
                f"{row['system']:<24} {raw:>9} {row['normalized']:>+11.3f} "
                f"{row['n_judgments']:>7}  {interval}"
            )
