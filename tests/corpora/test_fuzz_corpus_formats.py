"""Property-based fuzzing of every test-set import format (``FORMATS``): random bytes, random
text and mutated valid files go through ``parse_corpus`` (what the form and the command call)
and, for a few examples, through the upload form.

The only failure an import may show is its clean refusal (``CorpusFormatError`` or
``CorpusInputError``, a form error, never a 500); what it accepts must be storable: no character
the database or the XML exports cannot take, no name or id longer than its model field.

``make fuzz`` runs this with ``HYPOTHESIS_PROFILE=fuzz`` (2000 examples per test); the default
profile keeps it to a few seconds.
"""

from __future__ import annotations

import json
import math
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaltrans.corpora.formats import FORMATS, CorpusData, CorpusFormatError, InputFile, reading
from evaltrans.corpora.parsing import (
    CorpusInputError,
    CorpusInputs,
    parse_corpus,
    storage_limits,
)
from tests import fuzzing

from .bad_inputs import VALID, CorpusFiles, database_counts
from .test_views import post_files

assert fuzzing  # loads the hypothesis profile before the @settings below

FORMAT_NAMES = sorted(FORMATS)
MAX_BYTES = 64 * 1024
MAX_SEGMENTS = 200
# Encodings a user may type: good ones, ones of the wrong width, and ones that are not text.
ENCODINGS = [
    None,
    "utf-8",
    "utf-8-sig",
    "latin-1",
    "cp1250",
    "ascii",
    "utf-16",
    "utf-16-le",
    "utf-32",
    "utf-7",
    "shift_jis",
    "rot13",
    "base64",
    "hex",
    "punycode",
    "idna",
    "unicode_escape",
    "undefined",
    "no-such-codec",
    "",
]
# Characters the checks are about, and others that are fine but unusual.
AWKWARD = [
    "\x00",
    "\x01",
    "\x08",
    "\x0b",
    "\x0c",
    "\x1f",
    "\r",
    "\r\n",
    "\n",
    "\t",
    "\x85",
    "\u2028",
    "\u200b",
    "\u00a0",
    "\u3000",
    "\ufeff",
    "\ufffe",
    "\uffff",
    "&#0;",
    "&#1;",
    "&#xD800;",
    "&#99999999999999999999;",
    "&#x110000;",
    "<",
    "&",
    "]]>",
    '"',
    "</seg>",
    "<seg>",
    "<!--",
    "<!DOCTYPE x [<!ENTITY e 'x'>]>",
    "<?xml version='1.0' encoding='rot13'?>",
    "²",
    "١٢",
    "&#" + "9" * 5000 + ";",
]
# Where a field or an attribute value starts: edits there reach the checks of ids and names.
DELIMITERS = b'\t">=\n '

AWKWARD_BYTES = [b"\xed\xa0\x80", b"\xff\xfe", b"\xfe\xff", b"\xef\xbb\xbf", b"\xc3", b"\x80"]


def _encode(text: str) -> bytes:
    return text.encode("utf-8", errors="surrogatepass")


@st.composite
def mutations(draw, data: bytes) -> bytes:
    """``data`` after one to three random edits of the kinds real files suffer."""
    for _ in range(draw(st.integers(1, 3))):
        position = draw(st.integers(0, len(data)))
        kind = draw(
            st.sampled_from(
                [
                    "insert",
                    "at-delimiter",
                    "insert-bytes",
                    "delete",
                    "truncate",
                    "flip",
                    "duplicate",
                    "huge",
                    "reencode",
                    "line-ends",
                ]
            )
        )
        if kind == "insert":
            piece = draw(st.sampled_from(AWKWARD) | st.text(max_size=5))
            data = data[:position] + _encode(piece) + data[position:]
        elif kind == "at-delimiter":
            starts = [index + 1 for index, byte in enumerate(data) if byte in DELIMITERS]
            if starts:
                position = draw(st.sampled_from(starts))
                piece = draw(st.sampled_from(AWKWARD) | st.text(max_size=3))
                data = data[:position] + _encode(piece) + data[position:]
        elif kind == "insert-bytes":
            piece = draw(st.sampled_from(AWKWARD_BYTES) | st.binary(max_size=4))
            data = data[:position] + piece + data[position:]
        elif kind == "delete":
            end = draw(st.integers(position, min(len(data), position + 40)))
            data = data[:position] + data[end:]
        elif kind == "truncate":
            data = data[:position]
        elif kind == "flip" and data:
            index = min(position, len(data) - 1)
            data = data[:index] + bytes([draw(st.integers(0, 255))]) + data[index + 1 :]
        elif kind == "duplicate":
            end = draw(st.integers(position, min(len(data), position + 200)))
            data = data[:end] + data[position:end] + data[end:]
        elif kind == "huge":
            piece = draw(st.sampled_from(["x", "é", "7", " ", "\u200b", "<b>"]))
            data = data[:position] + _encode(piece * draw(st.integers(60, 700))) + data[position:]
        elif kind == "reencode":
            target = draw(st.sampled_from(["utf-16", "utf-16-le", "utf-32", "latin-1", "cp1250"]))
            data = data.decode("utf-8", errors="replace").encode(target, errors="replace")
        elif kind == "line-ends":
            data = data.replace(b"\n", draw(st.sampled_from([b"\r", b"\r\n", b"\n\n", b""])))
    return data


def _with_file(files: CorpusFiles, index: int, data: bytes) -> CorpusFiles:
    """``files`` with its ``index``-th file (in ``all_files`` order) replaced by ``data``."""
    count = 0

    def swap(named: tuple[str, bytes] | None) -> tuple[str, bytes] | None:
        nonlocal count
        if named is None:
            return None
        count += 1
        return (named[0], data) if count - 1 == index else named

    source, file = swap(files.source), swap(files.file)
    references = tuple(swap(named) for named in files.references)
    systems = tuple(swap(named) for named in files.systems)
    return replace(files, source=source, file=file, references=references, systems=systems)


@st.composite
def corpus_files(draw, import_format: str) -> tuple[CorpusFiles, str | None]:
    """A valid corpus of ``import_format`` with one file mutated, replaced by random bytes or
    by random text, and an encoding."""
    files = VALID[import_format]
    index = draw(st.integers(0, len(files.all_files()) - 1))
    original = files.all_files()[index][1]
    data = draw(
        mutations(original)
        | st.binary(max_size=400)
        | st.text(max_size=200).map(_encode)
        | st.lists(st.sampled_from(AWKWARD), max_size=30).map(lambda parts: _encode("".join(parts)))
    )
    encoding = draw(st.sampled_from(ENCODINGS))
    return _with_file(files, index, data), encoding


def inputs_of(files: CorpusFiles, encoding: str | None) -> CorpusInputs:
    """The parser inputs the upload form builds from these files."""

    def named(pair: tuple[str, bytes] | None) -> InputFile | None:
        return InputFile(*pair) if pair is not None else None

    names = files.system_names or tuple(name for name, _ in files.systems)
    return CorpusInputs(
        source=named(files.source),
        references=[(None, InputFile(*pair)) for pair in files.references],
        systems=[(name, InputFile(*pair)) for name, pair in zip(names, files.systems, strict=True)],
        file=named(files.file),
        source_lang=files.source_lang,
        target_lang=files.target_lang,
        encoding=encoding or None,
        max_bytes=MAX_BYTES,
        max_segments=MAX_SEGMENTS,
    )


def _strings(value: object):
    """Every string inside JSON-like metadata (keys included)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def assert_storable(corpus: CorpusData) -> None:
    """What an import accepted, the database and every XML export can take."""
    limits = storage_limits()

    def fits(kind: str, value: str) -> None:
        assert limits.problem(kind, value) is None, (kind, value)
        assert reading.unstorable_problem(value) is None, (kind, value)

    fits("language", corpus.source_lang)
    fits("language", corpus.target_lang)
    assert 0 < len(corpus.segments) <= MAX_SEGMENTS
    for segment in corpus.segments:
        fits("doc_id", segment.doc_id)
        fits("seg_id", segment.seg_id)
        assert not reading.is_blank(segment.source)
        assert reading.unstorable_problem(segment.source) is None
        for label, text in segment.references.items():
            fits("reference", label)
            assert reading.unstorable_problem(text) is None
        for name, text in segment.candidates.items():
            fits("system", name)
            assert not reading.is_blank(text)
            assert reading.unstorable_problem(text) is None
        for evaluation in segment.evaluations:
            fits("aspect", evaluation.aspect)
            assert math.isfinite(evaluation.value)
            for text in _strings(evaluation.attributes):
                assert reading.unstorable_problem(text) is None
    for text in _strings(corpus.metadata):
        assert reading.unstorable_problem(text) is None
    json.dumps(corpus.metadata, allow_nan=False)  # PostgreSQL's jsonb takes no NaN


def parse_or_refuse(import_format: str, inputs: CorpusInputs) -> CorpusData | None:
    """The corpus, or None when the import was refused cleanly; anything else fails."""
    try:
        corpus = parse_corpus(import_format, inputs)
    except (CorpusFormatError, CorpusInputError) as error:
        assert str(error) and "\n" not in str(error)
        return None
    assert_storable(corpus)
    return corpus


FUZZ = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.parametrize("import_format", FORMAT_NAMES)
@FUZZ
@given(data=st.data())
def test_any_input_is_parsed_storably_or_refused_cleanly(import_format, data):
    files, encoding = data.draw(corpus_files(import_format))
    parse_or_refuse(import_format, inputs_of(files, encoding))


@pytest.mark.parametrize("import_format", FORMAT_NAMES)
@FUZZ
@given(data=st.data())
def test_what_is_parsed_can_be_written_or_is_refused_cleanly(import_format, data):
    """Every writer takes what any import accepted, or refuses it with its own message."""
    files, encoding = data.draw(corpus_files(import_format))
    corpus = parse_or_refuse(import_format, inputs_of(files, encoding))
    if corpus is None:
        return
    with tempfile.TemporaryDirectory(prefix="evaltrans-fuzz-") as folder:
        for export_format, spec in FORMATS.items():
            if spec.write is None:
                continue
            try:
                spec.write(corpus, Path(folder) / export_format)
            except CorpusFormatError:
                pass


def test_every_format_has_a_valid_sample():
    """The mutations start from a file each format accepts, so they reach its deep checks."""
    for import_format in FORMAT_NAMES:
        corpus = parse_or_refuse(import_format, inputs_of(VALID[import_format], None))
        assert corpus is not None, import_format


# --- the upload form, a few examples ----------------------------------------------------------

FORM = settings(
    max_examples=max(3, settings.default.max_examples // 8),
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.function_scoped_fixture,
        HealthCheck.data_too_large,
    ],
)


@pytest.mark.django_db
@FORM
@given(data=st.data())
def test_the_upload_form_never_fails_with_a_server_error(client, admin_user, data):
    """The test client re-raises a view's exception: any 500 fails here."""
    client.force_login(admin_user)
    import_format = data.draw(st.sampled_from(FORMAT_NAMES))
    files, encoding = data.draw(corpus_files(import_format))
    before = database_counts()
    response = post_files(client, files, name="fuzz", encoding=(encoding or "")[:32])
    assert response.status_code in (200, 302)
    if response.status_code == 200:
        assert database_counts() == before
