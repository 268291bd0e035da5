"""Property-based fuzzing of every judgments import format (``IMPORT_FORMATS``: WMT DA, MQM TSV,
EvalTrans XML): random bytes, random text and mutated valid files go through the parsers and
the record checks, through the import service and, for a few examples, through the upload page.

The only failure an import may show is its clean refusal (``CorpusFormatError`` or
``JudgmentImportError``; on the page a form error, never a 500); what it accepts must be
storable: names within their model fields, finite scores, JSON without NaN.

``make fuzz`` runs this with ``HYPOTHESIS_PROFILE=fuzz``; the default profile keeps it short.
"""

from __future__ import annotations

import itertools
import json
import math

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaltrans.corpora.formats import CorpusFormatError, InputFile
from evaltrans.corpora.formats.evaltrans_xml import parse_evaltrans_xml
from judging.formats import check_records, check_unique
from judging.formats.evaltrans import records_from_corpus
from judging.formats.mqm import mqm_records, parse_mqm_errors
from judging.formats.wmt_da import parse_wmt_da_csv
from judging.humanscores.models import ExternalJudgment, JudgmentSet
from judging.humanscores.services import (
    IMPORT_FORMATS,
    JudgmentImportError,
    judgment_limits,
    judgmentset_import_file,
)
from tests import fuzzing
from tests.corpora.test_fuzz_corpus_formats import AWKWARD, mutations

from .conftest import DA_HEADER, DA_ROWS, DA_STATS, EVALTRANS_XML, mqm_rows

assert fuzzing  # loads the hypothesis profile before the @settings below

SAMPLES = {
    "wmt-da-csv": ("ad.csv", "\n".join([DA_HEADER, *DA_ROWS]) + "\n"),
    "mqm-tsv": ("ratings.tsv", "\n".join(mqm_rows()) + "\n"),
    "evaltrans-xml": ("db.xml", EVALTRANS_XML.format(value=3)),
}
STATS = ("stats.txt", "\n".join(DA_STATS) + "\n")
# Numbers and fields the parsers compute with.
DELIMITERS = {"wmt-da-csv": " ", "mqm-tsv": "\t", "evaltrans-xml": '"'}
NUMBERS = [
    "nan",
    "inf",
    "-inf",
    "1e308",
    "-1e308",
    "1e-320",
    "0",
    "-0",
    "9" * 5000,
    "0x10",
    "1_0",
    "10000000000",
]


@st.composite
def judgment_files(draw, import_format: str) -> tuple[InputFile, InputFile | None]:
    """The sample of ``import_format`` mutated, or random bytes or text; for WMT DA also a
    judge-stats file, perhaps mutated."""
    name, text = SAMPLES[import_format]
    original = text.encode()
    if draw(st.booleans()):  # a number where the format computes with one
        joiner = DELIMITERS[import_format]
        words = text.split(joiner)
        index = draw(st.integers(0, len(words) - 1))
        words[index] = draw(st.sampled_from(NUMBERS))
        original = joiner.join(words).encode()
    data = draw(
        mutations(original)
        | st.just(original)
        | st.binary(max_size=300)
        | st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass"))
        | st.lists(st.sampled_from(AWKWARD + NUMBERS), max_size=20).map(
            lambda parts: "\t".join(parts).encode("utf-8", "surrogatepass")
        )
    )
    stats = None
    if import_format == "wmt-da-csv" and draw(st.booleans()):
        stats_data = STATS[1].encode()
        if draw(st.booleans()):
            lines = STATS[1].splitlines()
            index = draw(st.integers(0, len(lines) - 1))
            lines[index] = "[1] " + draw(st.sampled_from(NUMBERS + ['"W1"', '""']))
            stats_data = ("\n".join(lines) + "\n").encode()
        stats = InputFile(STATS[0], draw(mutations(stats_data) | st.just(stats_data)))
    return InputFile(name, data), stats


def parse_and_check(import_format: str, file: InputFile, stats: InputFile | None):
    """What the import service does before storing, without the database."""
    limits = judgment_limits()
    if import_format == "wmt-da-csv":
        records = parse_wmt_da_csv(file, judge_stats=stats)
    elif import_format == "mqm-tsv":
        records = mqm_records(parse_mqm_errors(file))
    else:
        corpus = parse_evaltrans_xml(file=file, source_lang="", target_lang="", limits=limits)
        records = records_from_corpus(corpus, source_name=file.name)
    check_records(file, records, limits)
    check_unique(file, records)
    return records


def assert_storable(records) -> None:
    limits = judgment_limits()
    for record in records:
        for kind, value in (
            ("system", record.system),
            ("seg_id", record.segment_id),
            ("judge", record.judge),
            ("aspect", record.aspect),
        ):
            assert value.strip() and limits.problem(kind, value) is None, (kind, value)
        assert record.raw is not None or record.z_given is not None
        for score in (record.raw, record.z_given):
            assert score is None or math.isfinite(score)
        json.dumps(record.extra, allow_nan=False)


FUZZ = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.parametrize("import_format", IMPORT_FORMATS)
@FUZZ
@given(data=st.data())
def test_any_file_is_read_storably_or_refused_cleanly(import_format, data):
    file, stats = data.draw(judgment_files(import_format))
    try:
        records = parse_and_check(import_format, file, stats)
    except CorpusFormatError as error:
        assert str(error) and "\n" not in str(error)
        return
    assert_storable(records)


def test_every_format_has_a_valid_sample():
    for import_format in IMPORT_FORMATS:
        name, text = SAMPLES[import_format]
        assert parse_and_check(import_format, InputFile(name, text.encode()), None)


DATABASE = settings(
    max_examples=max(5, settings.default.max_examples // 4),
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.function_scoped_fixture,
        HealthCheck.data_too_large,
    ],
)
_NAMES = (f"fuzz {number}" for number in itertools.count())


@pytest.mark.django_db
@pytest.mark.parametrize("import_format", IMPORT_FORMATS)
@DATABASE
@given(data=st.data())
def test_the_import_service_stores_or_refuses_cleanly(import_format, data):
    """Stored metadata included: judge times or scales with NaN fail PostgreSQL's jsonb."""
    file, stats = data.draw(judgment_files(import_format))
    before = ExternalJudgment.objects.count()
    try:
        result = judgmentset_import_file(
            import_format=import_format, file=file, name=next(_NAMES), judge_stats=stats
        )
    except (CorpusFormatError, JudgmentImportError) as error:
        assert str(error) and "\n" not in str(error)
        assert ExternalJudgment.objects.count() == before
        return
    stored = JudgmentSet.objects.get(pk=result.judgment_set.pk)
    json.dumps(stored.metadata, allow_nan=False)
    assert stored.judgments.count() == result.count


@pytest.mark.django_db
@settings(
    max_examples=max(3, settings.default.max_examples // 8),
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.function_scoped_fixture,
        HealthCheck.data_too_large,
    ],
)
@given(data=st.data())
def test_the_upload_page_never_fails_with_a_server_error(client, admin_user, data):
    """The test client re-raises a view's exception: any 500 fails here."""
    client.force_login(admin_user)
    import_format = data.draw(st.sampled_from(IMPORT_FORMATS))
    file, stats = data.draw(judgment_files(import_format))
    post = {
        "format": import_format,
        "name": next(_NAMES),
        "file": SimpleUploadedFile(file.name, file.data),
    }
    if stats is not None:
        post["judge_stats"] = SimpleUploadedFile(stats.name, stats.data)
    before = ExternalJudgment.objects.count()
    response = client.post(reverse("humanscores:import"), post)
    assert response.status_code in (200, 302)
    if response.status_code == 200:
        assert ExternalJudgment.objects.count() == before
