"""python manage.py index_words [--name NAME]: build the search's text index in this process."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaltrans.corpora.models import TestSet
from evaltrans.corpora.services import testset_words_index
from evaltrans.corpora.text_index import index_available

NO_INDEX = (
    "this database has no text index (SQLite without FTS5 and its trigram tokenizer); "
    "the search reads every text instead"
)
NO_TEST_SET = "no test set named {name!r}"


class Command(BaseCommand):
    help = (
        "Index the words of test sets for the segment browser's search (a worker does it after "
        "each import; this builds what is missing here, e.g. without a worker or for sets "
        "imported before the index existed)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--name", help="Only the test sets of this name (every version).")

    def handle(self, *args: Any, **options: Any) -> None:
        if not index_available():
            raise CommandError(NO_INDEX)
        test_sets = TestSet.objects.filter(words_indexed=False).order_by("pk")
        if options["name"]:
            if not TestSet.objects.filter(name=options["name"]).exists():
                raise CommandError(NO_TEST_SET.format(name=options["name"]))
            test_sets = test_sets.filter(name=options["name"])
        pending = list(test_sets)
        for test_set in pending:
            started = time.perf_counter()
            segments = testset_words_index(test_set_id=test_set.pk)
            seconds = time.perf_counter() - started
            self.stdout.write(f"{test_set}: {segments:,} segments indexed in {seconds:.1f} s")
        if not pending:
            self.stdout.write("every test set is indexed")
