"""python manage.py load_demo_runs: the demo corpus's first run of measures, computed in this
process, once (safe to run again), so the correlation dashboards have something to show on
first start."""

from __future__ import annotations

from io import StringIO
from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand

from evaltrans.corpora.management.commands.load_demo_corpus import demo_test_set
from metrics.models import SystemScore

DEMO_MEASURES = "wer,per,cder,ter,bleu,nist,chrf"


class Command(BaseCommand):
    help = "Compute the demo run (WER, PER, CDER, TER, BLEU, NIST, chrF) on the demo corpus."

    def handle(self, *args: Any, **options: Any) -> None:
        test_set = demo_test_set()
        if test_set is None:
            self.stdout.write("No demo corpus: run load_demo first.")
            return
        if SystemScore.objects.filter(test_set=test_set).exists():
            self.stdout.write(f"Demo runs on {test_set.name!r} already computed.")
            return
        call_command(
            "evaluate",
            "--test-set",
            test_set.name,
            "--measures",
            DEMO_MEASURES,
            "--comment",
            "Demo run: the measures the correlation dashboards start with.",
            "--eager",
            stdout=StringIO(),
            stderr=StringIO(),
        )
        self.stdout.write(
            self.style.SUCCESS(f"Computed {DEMO_MEASURES.replace(',', ', ')} on {test_set.name!r}.")
        )
