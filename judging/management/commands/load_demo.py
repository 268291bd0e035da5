"""python manage.py load_demo [--force]: the demo users and corpus (``load_demo_corpus``) and the
demo corpus's MQM ratings as a judgment set attached to it, once (safe to run again).

``load_demo_campaign`` adds a judging campaign on the same corpus.
"""

from __future__ import annotations

from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

from evaltrans.corpora.management.commands.load_demo_corpus import demo_file, demo_test_set
from judging.humanscores.services import judgmentset_import_demo_ratings


class Command(BaseCommand):
    help = "Create the demo users, import the demo corpus and its MQM ratings (skips what exists)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--force",
            action="store_true",
            help="Load the demo users even when DEBUG is off (they have published passwords).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        call_command("load_demo_corpus", force=options["force"], stdout=self.stdout)
        test_set = demo_test_set()
        if test_set is None:
            return
        # The same TSV carries the MQM ratings: a new user sees real human scores at once.
        ratings = judgmentset_import_demo_ratings(test_set=test_set, file=demo_file())
        if ratings is not None:
            self.stdout.write(self.style.SUCCESS(ratings.summary))
