"""python manage.py load_demo_corpus [--force]: demo users and the demo corpus, once (safe to run
again).

``load_demo`` (judging) runs this and then adds the demo's human ratings. The demo users have
published passwords, so the command refuses to run when DEBUG is off (a production site) unless
--force is given.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaltrans.corpora.formats.base import InputFile
from evaltrans.corpora.models import TestSet
from evaltrans.corpora.parsing import CorpusInputs, parse_corpus
from evaltrans.corpora.services import testset_import
from evaltrans.roles import JUDGES_GROUP, VIEWERS_GROUP

DEMO_DIR = Path(__file__).resolve().parents[2] / "demo"
DEMO_FILE = DEMO_DIR / "mqm_ted_ende.tsv.gz"
DEMO_NAME = "WMT21 TED MQM en-de"

NOT_IN_PRODUCTION = (
    "refused: DEBUG is off, so this looks like a production site, and load_demo would create "
    "the demo users with their published passwords (admin / admin-demo is a superuser); "
    "run it with the development settings, or pass --force if you really want them here"
)

# (user name, password, staff, group). Demo credentials only: never use them in production.
DEMO_USERS = [
    ("admin", "admin-demo", True, None),
    ("judge1", "judge-demo", False, JUDGES_GROUP),
    ("judge2", "judge-demo", False, JUDGES_GROUP),
    ("viewer", "viewer-demo", False, VIEWERS_GROUP),
]


def demo_file() -> InputFile:
    """The demo TSV, decompressed (its texts are the demo corpus, its ratings the demo's MQM)."""
    return InputFile(name=DEMO_FILE.name, data=gzip.decompress(DEMO_FILE.read_bytes()))


def demo_test_set() -> TestSet | None:
    """The demo test set (its first version), or None before the demo is loaded."""
    return TestSet.objects.filter(name=DEMO_NAME).order_by("version").first()


class Command(BaseCommand):
    help = "Create the demo users and import the demo corpus (skips what exists)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--force",
            action="store_true",
            help="Load the demo users even when DEBUG is off (they have published passwords).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG and not options["force"]:
            raise CommandError(NOT_IN_PRODUCTION)
        self._users()
        if demo_test_set() is not None:
            self.stdout.write(f"Demo corpus {DEMO_NAME!r} already loaded.")
            return
        inputs = CorpusInputs(file=demo_file(), source_lang="en", target_lang="de")
        result = testset_import(
            corpus=parse_corpus("mqm-tsv", inputs), name=DEMO_NAME, import_format="mqm-tsv"
        )
        self.stdout.write(self.style.SUCCESS(result.summary))

    def _users(self) -> None:
        users = get_user_model()
        for name, password, staff, group in DEMO_USERS:
            if users.objects.filter(username=name).exists():
                continue
            user = users.objects.create_user(username=name, password=password)
            user.is_staff = user.is_superuser = staff
            user.save()
            if group:
                user.groups.add(Group.objects.get_or_create(name=group)[0])
            self.stdout.write(f"Created demo user {name!r}.")
