"""python manage.py export_corpus FORMAT --name NAME [--test-set-version N] --out DIR."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaltrans.corpora.formats import FORMATS
from evaltrans.corpora.formats.base import CorpusFormatError
from evaltrans.corpora.models import TestSet
from evaltrans.corpora.services import testset_export

NO_TEST_SET = "no test set named {name!r}{version}"


class Command(BaseCommand):
    help = "Export a test set (latest version unless --test-set-version) into a folder."

    def add_arguments(self, parser: CommandParser) -> None:
        writable = sorted(name for name, spec in FORMATS.items() if spec.write is not None)
        parser.add_argument("format", choices=writable)
        parser.add_argument("--name", required=True)
        parser.add_argument("--test-set-version", type=int, dest="test_set_version")
        parser.add_argument("--out", required=True, type=Path)

    def handle(self, *args: Any, **options: Any) -> None:
        test_sets = TestSet.objects.filter(name=options["name"])
        if options["test_set_version"] is not None:
            test_sets = test_sets.filter(version=options["test_set_version"])
        test_set = test_sets.order_by("-version").first()
        if test_set is None:
            version = (
                f" with version {options['test_set_version']}"
                if options["test_set_version"]
                else ""
            )
            raise CommandError(NO_TEST_SET.format(name=options["name"], version=version))
        try:
            files = testset_export(
                test_set=test_set, export_format=options["format"], out_dir=options["out"]
            )
        except CorpusFormatError as error:  # a corpus the format cannot hold
            raise CommandError(
                f"cannot export {test_set} as {options['format']}: {error}"
            ) from None
        for path in files:
            self.stdout.write(str(path))
        self.stdout.write(
            self.style.SUCCESS(f"Exported {test_set} as {options['format']}: {len(files)} files.")
        )
