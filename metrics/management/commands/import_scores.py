"""python manage.py import_scores --test-set NAME [--test-set-version N] --name NAME
(--higher-is-better | --lower-is-better) [--signature TEXT]
(--mtme-seg FILE [--mtme-sys FILE] | --mtme-sys FILE | --tsv FILE)

Scores of a measure computed elsewhere (COMET, BLEURT, MetricX, …), stored beside the measures
computed here so that the correlation command and dashboards include them (see
docs/import-formats.md, "Scores from elsewhere").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaltrans.corpora.formats.base import CorpusFormatError, InputFile
from metrics.external_scores import DEFAULT_SIGNATURE, ExternalScoresError
from metrics.selectors.texts import testset_by_name
from metrics.services.external import external_scores_import

NO_SUCH_FILE = "{path}: no such file"
FILE_TOO_LARGE = (
    "{path}: {size:,} bytes is above the limit of {limit:,} bytes (CORPUS_UPLOAD_MAX_BYTES)"
)
NO_TEST_SET = "no test set named {name!r}{version}"


class Command(BaseCommand):
    help = "Import the stored scores of a measure computed elsewhere (COMET, BLEURT, …)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--test-set", required=True, help="Test set name.")
        parser.add_argument(
            "--test-set-version", type=int, help="Test set version (default: latest)."
        )
        parser.add_argument(
            "--name", required=True, help="Measure name, e.g. COMET-22 (letters, digits, -_.+)."
        )
        direction = parser.add_mutually_exclusive_group(required=True)
        direction.add_argument(
            "--higher-is-better", action="store_true", help="Higher scores are better."
        )
        direction.add_argument(
            "--lower-is-better",
            action="store_true",
            help="Lower scores are better (negated in correlations).",
        )
        parser.add_argument(
            "--signature",
            default=DEFAULT_SIGNATURE,
            help="The measure's settings as you declare them (free text, default: unspecified); "
            "importing the same name and signature again replaces the scores.",
        )
        parser.add_argument("--mtme-seg", help="mt-metrics-eval *.seg.score file.")
        parser.add_argument("--mtme-sys", help="mt-metrics-eval *.sys.score file.")
        parser.add_argument("--tsv", help="system<TAB>segment<TAB>score file (1-based segments).")

    def handle(self, *args: Any, **options: Any) -> None:
        version = options["test_set_version"]
        test_set = testset_by_name(name=options["test_set"], version=version)
        if test_set is None:
            raise CommandError(
                NO_TEST_SET.format(
                    name=options["test_set"],
                    version=f" with version {version}" if version is not None else "",
                )
            )
        try:
            result = external_scores_import(
                test_set=test_set,
                name=options["name"],
                declared_signature=options["signature"],
                higher_is_better=options["higher_is_better"],
                seg_file=_read(options["mtme_seg"]),
                sys_file=_read(options["mtme_sys"]),
                tsv_file=_read(options["tsv"]),
            )
        except (CorpusFormatError, ExternalScoresError) as error:
            raise CommandError(str(error)) from None
        self.stdout.write(self.style.SUCCESS(result.summary))


def _read(path: str | None) -> InputFile | None:
    if path is None:
        return None
    file = Path(path)
    if not file.is_file():
        raise CommandError(NO_SUCH_FILE.format(path=path))
    size, limit = file.stat().st_size, settings.CORPUS_UPLOAD_MAX_BYTES
    if size > limit:
        raise CommandError(FILE_TOO_LARGE.format(path=path, size=size, limit=limit))
    return InputFile(name=file.name, data=file.read_bytes())
