"""Input that the database or the exports cannot take, careless input that used to pass
silently, and the caps of one import.

Every case goes through both channels, the upload form and ``import_corpus``: each must show the
same one-line message naming file, line and problem, and store nothing. Run on SQLite and on
PostgreSQL (``DATABASE_URL=postgres://…``), where NUL and over-long names used to fail in the
database instead.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from django.core.management import CommandError, ManagementUtility
from django.urls import reverse

from evaltrans.corpora import parsing
from evaltrans.corpora.formats import FORMATS, reading
from evaltrans.corpora.models import RawEvaluation, Reference, Segment, System, TestSet

from . import conftest
from .bad_inputs import VALID, CorpusFiles, at, database_counts, lines, stored_texts, utf8
from .test_formats_errors import EVALTRANS as EVALTRANS_SAMPLE
from .test_formats_mqm_tsv import ROWS as MQM_ROWS
from .test_formats_mqm_tsv import tsv
from .test_formats_sgml import REFERENCE as SGML_REFERENCE
from .test_formats_sgml import SOURCE as SGML_SOURCE
from .test_formats_wmt_xml import SAMPLE as WMT_SAMPLE
from .test_import_command import import_files
from .test_views import post_files

pytestmark = pytest.mark.django_db

DOC_ID = Segment._meta.get_field("doc_id").max_length
SEG_ID = Segment._meta.get_field("seg_id").max_length
SYSTEM = System._meta.get_field("name").max_length
LABEL = Reference._meta.get_field("label").max_length
LANGUAGE = TestSet._meta.get_field("source_lang").max_length
ASPECT = RawEvaluation._meta.get_field("aspect").max_length
NAME = TestSet._meta.get_field("name").max_length


def control(code: int, column: int | None = None) -> str:
    where = f" (column {column})" if column is not None else ""
    return (
        f"the control character U+{code:04X}{where} cannot be stored or exported: "
        "remove it (tab, line feed and carriage return are the only ones allowed)"
    )


def too_long(what: str, value: str, limit: int) -> str:
    return (
        f"{what} of {len(value):,} characters is too long; at most {limit:,} can be stored "
        f"({value[:30]!r}…)"
    )


def column_of(text: str, line: int, needle: str) -> int:
    return text.split("\n")[line - 1].index(needle) + 1


@dataclass(frozen=True)
class Case:
    id: str
    files: CorpusFiles
    message: str
    encoding: str = ""


def _text(**changes: object) -> CorpusFiles:
    return replace(VALID["text"], **changes)


def _single(import_format: str, data: str | bytes) -> CorpusFiles:
    name = VALID[import_format].file[0]
    return replace(VALID[import_format], file=(name, utf8(data) if isinstance(data, str) else data))


def _sgml_source(text: str) -> CorpusFiles:
    return replace(VALID["sgml"], source=("src.sgm", utf8(text)))


LONG_DOC = "d" * (DOC_ID + 1)
LONG_SYSTEM = "S" * (SYSTEM + 1)
LONG_SEG = "7" * (SEG_ID + 1)
LONG_LABEL = "L" * (LABEL + 1)
LONG_LANGUAGE = "cs" + "x" * (LANGUAGE - 1)
LONG_CLASS = "c" * (ASPECT + 1)
WMT_NUL = WMT_SAMPLE.replace("Tři", "T\x00ři")
EVALTRANS_FF = EVALTRANS_SAMPLE.replace("<t_sent>T</t_sent>", "<t_sent>T\x0c</t_sent>")
MQM_SOH = [*MQM_ROWS[:2], MQM_ROWS[2].replace("Die erste", "Die\x01erste"), *MQM_ROWS[3:]]
UTF8_TEXT = "Guten Morgen.\nWie geht es dir?\nDas ist gut.\n"
NOT_TEXT = "is not an encoding of text files; give the encoding of the file's characters, e.g. "

CASES = [
    # --- characters the database (NUL on PostgreSQL) or the XML exports cannot take ---
    Case(
        "text-nul",
        _text(source=("src.de", lines(["Guten Morgen.", "Wie geht\x00 es dir?", "Gut."]))),
        at("src.de", control(0, 9), line=2),
    ),
    Case(
        "text-soh-in-system",
        _text(
            systems=(("sysX.en", lines(conftest.SYS_X)), ("sysY.en", lines(["a", "b", "c\x01"])))
        ),
        at("sysY.en", control(1, 2), line=3),
    ),
    Case(
        "text-form-feed",
        _text(references=(("ref.en", lines(["Good\x0cmorning.", "How?", "Good."])),)),
        at("ref.en", control(0xC, 5), line=1),
    ),
    Case(
        "sgml-lone-surrogate-reference",
        _sgml_source(SGML_SOURCE.replace("Titulek", "Titulek &#xD800;")),
        at(
            "src.sgm",
            "character reference: the lone surrogate U+D800 cannot be stored or exported: "
            "it is half of a UTF-16 pair, not a character",
            line=9,
        ),
    ),
    Case(
        "sgml-control-reference",
        replace(
            VALID["sgml"],
            references=(("ref.sgm", utf8(SGML_REFERENCE.replace("Headline", "Head&#1;line"))),),
        ),
        at("ref.sgm", "character reference: " + control(1), line=2),
    ),
    Case(
        "wmt-xml-nul",
        _single("wmt-xml", WMT_NUL),
        at("test.xml", control(0, column_of(WMT_NUL, 7, "\x00")), line=7),
    ),
    Case(
        "evaltrans-xml-form-feed",
        _single("evaltrans-xml", EVALTRANS_FF),
        at("db.xml", control(0xC, column_of(EVALTRANS_FF, 5, "\x0c")), line=5),
    ),
    Case(
        "mqm-tsv-soh",
        _single("mqm-tsv", tsv(rows=MQM_SOH)),
        at("mqm.tsv", control(1, MQM_SOH[2].index("\x01") + 1), line=4),
    ),
    # --- names and ids longer than the model fields ---
    Case(
        "wmt-xml-long-doc-id",
        _single("wmt-xml", WMT_SAMPLE.replace('<doc id="d2"', f'<doc id="{LONG_DOC}"')),
        at(
            "test.xml",
            too_long("document id", LONG_DOC, DOC_ID),
            line=18,
            element=f'<doc id="{LONG_DOC[:40]}…">',
        ),
    ),
    Case(
        "wmt-xml-long-system",
        _single("wmt-xml", WMT_SAMPLE.replace('system="Online-B"', f'system="{LONG_SYSTEM}"')),
        at(
            "test.xml",
            too_long("system name", LONG_SYSTEM, SYSTEM),
            line=13,
            element=f'<hyp system="{LONG_SYSTEM[:40]}…">',
        ),
    ),
    Case(
        "wmt-xml-long-language",
        _single("wmt-xml", WMT_SAMPLE.replace('lang="cs"', f'lang="{LONG_LANGUAGE}"')),
        at(
            "test.xml",
            too_long("language code", LONG_LANGUAGE, LANGUAGE),
            line=5,
            element=f'<src lang="{LONG_LANGUAGE}">',
        ),
    ),
    Case(
        "sgml-long-segment-id",
        _sgml_source(SGML_SOURCE.replace('<seg id="1">Dobrý', f'<seg id="{LONG_SEG}">Dobrý')),
        at("src.sgm", too_long("segment id", LONG_SEG, SEG_ID), line=4),
    ),
    Case(
        "sgml-long-reference-label",
        replace(
            VALID["sgml"],
            references=(
                ("ref.sgm", utf8(SGML_REFERENCE.replace('refid="A"', f'refid="{LONG_LABEL}"'))),
            ),
        ),
        at("ref.sgm", too_long("reference label", LONG_LABEL, LABEL), line=1),
    ),
    Case(
        "mqm-tsv-long-system",
        _single("mqm-tsv", tsv(rows=[row.replace("sysB", LONG_SYSTEM) for row in MQM_ROWS])),
        at("mqm.tsv", too_long("system name", LONG_SYSTEM, SYSTEM), line=7),
    ),
    Case(
        "evaltrans-xml-long-score-class",
        _single(
            "evaltrans-xml",
            EVALTRANS_SAMPLE.replace("</tgt>", f'<eval class="{LONG_CLASS}" val="1"/></tgt>'),
        ),
        at(
            "db.xml",
            too_long("score class", LONG_CLASS, ASPECT),
            line=5,
            element=f'<eval class="{LONG_CLASS[:40]}…">',
        ),
    ),
    Case(
        "text-long-system-name",
        _text(system_names=(LONG_SYSTEM, "Y")),
        at("sysX.en", too_long("system name", LONG_SYSTEM, SYSTEM)),
    ),
    # --- careless input that used to be imported silently ---
    Case(
        "text-classic-mac-line-ends",
        _text(source=("src.de", UTF8_TEXT.replace("\n", "\r").encode())),
        at("src.de", reading.BARE_CR, line=1),
    ),
    Case(
        "mqm-tsv-classic-mac-line-ends",
        _single("mqm-tsv", tsv().replace(b"\n", b"\r")),
        at("mqm.tsv", reading.BARE_CR, line=1),
    ),
    Case(
        "sgml-classic-mac-line-ends",
        _sgml_source(SGML_SOURCE.replace("\n", "\r")),
        at("src.sgm", reading.BARE_CR, line=1),
    ),
    *(
        Case(
            f"text-line-of-only-{'+'.join(f'U+{ord(char):04X}' for char in invisible)}",
            _text(references=(("ref.en", lines(["Good morning.", invisible, "Good."])),)),
            at("ref.en", reading.EMPTY_LINE, line=2),
        )
        for invisible in ("\u200b", "\u00a0", "\u3000", "\ufeff", "\u200b \u2060")
    ),
    Case(
        "wmt-xml-zero-width-segment",
        _single("wmt-xml", WMT_SAMPLE.replace("One!", "\u200b")),
        at("test.xml", "segment '1' of document 'd2' is empty", line=21, element='<seg id="1">'),
    ),
    Case(
        "mqm-tsv-no-break-space-system",
        _single("mqm-tsv", tsv(rows=[MQM_ROWS[0], "\u00a0" + MQM_ROWS[1][4:], *MQM_ROWS[2:]])),
        at("mqm.tsv", "empty system", line=3),
    ),
    Case(
        "text-utf-16-chosen-for-utf-8",
        _text(),
        at(
            "src.de",
            "the file does not look like utf-16: it has no byte-order mark and not one zero "
            "byte, which utf-16 text always has; is it utf-8?",
        ),
        encoding="utf-16",
    ),
    Case(
        "text-utf-16-le-chosen-for-latin-1",
        _text(source=("src.de", "Grüße\nWie geht es?\nGut.\n".encode("latin-1"))),
        at(
            "src.de",
            "the file does not look like utf-16-le: it has no byte-order mark and not one zero "
            "byte, which utf-16-le text always has; is it an 8-bit encoding such as latin-1 or "
            "cp1250?",
        ),
        encoding="utf-16-le",
    ),
    Case(
        "text-utf-16-file-read-as-utf-8",
        _text(source=("src.de", UTF8_TEXT.encode("utf-16"))),
        at(
            "src.de",
            "the file looks like utf-16 (it starts with the utf-16 byte-order mark), not utf-8; "
            "give the encoding utf-16",
        ),
    ),
    Case(
        "text-utf-16-without-bom-read-as-utf-8",
        _text(source=("src.de", UTF8_TEXT.encode("utf-16-le"))),
        at(
            "src.de",
            "the file looks like utf-16 (every other byte is zero), not utf-8; give the encoding "
            "utf-16",
        ),
    ),
    # --- encodings that are not encodings of text (LookupError / UnicodeError before) ---
    *(
        Case(
            f"xml-declares-{codec}",
            _single("wmt-xml", WMT_SAMPLE.replace('encoding="utf-8"', f'encoding="{codec}"', 1)),
            at(
                "test.xml",
                f"the XML declaration names encoding '{codec}': '{codec}' {NOT_TEXT}utf-8, "
                "latin-1 or cp1250",
                line=1,
            ),
        )
        for codec in ("rot13", "hex", "base64", "punycode")
    ),
]


def refused_by_form(client, case: Case) -> str:
    nothing = database_counts()
    response = post_files(client, case.files, encoding=case.encoding)
    assert response.status_code == 200
    assert database_counts() == nothing
    [message] = response.context["form"].non_field_errors()
    return message


def refused_by_command(tmp_path: Path, case: Case, *extra: str) -> str:
    nothing = database_counts()
    encoding = ("--encoding", case.encoding) if case.encoding else ()
    with pytest.raises(CommandError) as refused:
        import_files(case.files, tmp_path, "shell-corpus", *encoding, *extra)
    assert database_counts() == nothing
    return str(refused.value)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_the_upload_form_refuses_with_file_line_and_problem(client, admin_user, case: Case):
    client.force_login(admin_user)
    assert refused_by_form(client, case) == case.message


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_the_command_refuses_with_the_same_one_line_message(tmp_path, case: Case):
    message = refused_by_command(tmp_path, case)
    assert message == case.message
    assert "\n" not in message


@pytest.mark.parametrize("codec", ["rot13", "base64", "punycode", "hex", "idna", "bz2"])
def test_the_encoding_field_accepts_only_encodings_of_text(client, admin_user, codec):
    client.force_login(admin_user)
    nothing = database_counts()
    response = post_files(client, VALID["text"], encoding=codec)
    assert response.status_code == 200
    assert response.context["form"].errors["encoding"] == [
        f"'{codec}' {NOT_TEXT}utf-8, latin-1 or cp1250."
    ]
    assert database_counts() == nothing


@pytest.mark.parametrize("codec", ["rot13", "base64", "punycode"])
def test_the_encoding_option_accepts_only_encodings_of_text(tmp_path, codec):
    case = Case("", VALID["text"], "", encoding=codec)
    message = refused_by_command(tmp_path, case)
    assert message == f"src.de: '{codec}' {NOT_TEXT}utf-8, latin-1 or cp1250"


def test_an_encoding_of_text_still_imports(client, admin_user):
    client.force_login(admin_user)
    files = _text(source=("src.de", "Grüße\nWie geht es?\nGut.\n".encode("cp1252")))
    response = post_files(client, files, encoding="cp1252")
    assert response.status_code == 302, response.context["form"].errors
    assert "Grüße" in stored_texts()


def test_the_total_of_one_form_submission_is_capped(client, admin_user, settings):
    files = VALID["text"]
    total = sum(len(data) for _, data in files.all_files())
    settings.CORPUS_UPLOAD_MAX_TOTAL_BYTES = total - 1
    client.force_login(admin_user)
    nothing = database_counts()
    response = post_files(client, files)
    assert response.context["form"].non_field_errors() == [
        f"The files of one import have {total:,} bytes together, more than the limit of "
        f"{total - 1:,} bytes (CORPUS_UPLOAD_MAX_TOTAL_BYTES)."
    ]
    assert database_counts() == nothing
    settings.CORPUS_UPLOAD_MAX_TOTAL_BYTES = total
    assert post_files(client, files).status_code == 302


def test_the_total_of_one_command_is_capped(tmp_path, settings):
    files = VALID["text"]
    total = sum(len(data) for _, data in files.all_files())
    settings.CORPUS_UPLOAD_MAX_TOTAL_BYTES = total - 1
    message = refused_by_command(tmp_path, Case("", files, ""))
    assert message == (
        f"the files of one import have {total:,} bytes together, more than the limit of "
        f"{total - 1:,} bytes (CORPUS_UPLOAD_MAX_TOTAL_BYTES)"
    )


@pytest.mark.parametrize("import_format", ["text", "wmt-xml"])
def test_the_segments_of_one_import_are_capped(
    client, admin_user, tmp_path, settings, import_format
):
    files = VALID[import_format]
    main = (files.source or files.file)[0]
    count = 3 if import_format == "text" else 4
    settings.CORPUS_IMPORT_MAX_SEGMENTS = count - 1
    expected = (
        f"{main}: {count:,} segments, more than the limit of {count - 1:,} segments per import "
        "(CORPUS_IMPORT_MAX_SEGMENTS)"
    )
    client.force_login(admin_user)
    assert refused_by_form(client, Case("", files, "")) == expected
    assert refused_by_command(tmp_path, Case("", files, "")) == expected
    settings.CORPUS_IMPORT_MAX_SEGMENTS = count
    assert post_files(client, files).status_code == 302


def test_the_caps_have_defaults_without_settings(settings):
    del settings.CORPUS_UPLOAD_MAX_TOTAL_BYTES
    del settings.CORPUS_IMPORT_MAX_SEGMENTS
    assert parsing.max_total_bytes() == parsing.DEFAULT_MAX_TOTAL_BYTES
    assert parsing.max_segments() == parsing.DEFAULT_MAX_SEGMENTS


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("n" * (NAME + 1), f"the test set name has {NAME + 1:,} characters; at most {NAME:,} can be stored"),
        ("bad\x01name", "test set name 'bad\\x01name': " + control(1)),
        ("\u200b", "a test set needs a name"),
    ],
    ids=["too-long", "control-character", "invisible"],
)  # fmt: skip
def test_the_command_refuses_names_the_database_cannot_store(tmp_path, name, message):
    with pytest.raises(CommandError) as refused:
        import_files(VALID["text"], tmp_path, name)
    assert str(refused.value) == message
    assert TestSet.objects.count() == 0


def test_the_command_refuses_a_language_code_too_long(tmp_path):
    files = replace(VALID["text"], source_lang=LONG_LANGUAGE)
    message = refused_by_command(tmp_path, Case("", files, ""))
    assert message == f"source language {LONG_LANGUAGE!r}: " + too_long(
        "language code", LONG_LANGUAGE, LANGUAGE
    )


def test_the_limits_follow_the_model_fields(tmp_path, monkeypatch):
    """Read from the fields, not written down twice: a shorter field refuses shorter ids."""
    monkeypatch.setattr(Segment._meta.get_field("doc_id"), "max_length", 1)
    files = _single("wmt-xml", WMT_SAMPLE)
    message = refused_by_command(tmp_path, Case("", files, ""))
    assert message == at("test.xml", too_long("document id", "d1", 1), 4, '<doc id="d1">')


def test_what_is_imported_can_be_exported_in_every_format(client, admin_user):
    """Unusual characters that are stored (U+0085, U+2028, U+200B, U+FEFF inside a sentence)
    must not break an export: the XML exports gave 500 for the control characters refused
    above."""
    unusual = ["next\x85line", "para\u2028graph", "zero\u200bwidth", "mid\ufeffdle"]
    files = _text(
        source=("src.de", lines(unusual[:3])),
        references=(("ref.en", lines(unusual[1:])),),
        systems=(("sysX.en", lines(unusual[::-1][:3])),),
        system_names=("X",),
    )
    client.force_login(admin_user)
    response = post_files(client, files)
    assert response.status_code == 302, response.context["form"].errors
    test_set = TestSet.objects.get()
    for export_format, spec in FORMATS.items():
        if spec.write is None:
            continue
        url = reverse("corpora:test_set_export", args=[test_set.pk, export_format])
        assert client.get(url).status_code == 200, export_format


def test_call_command_output_is_one_line_without_traceback(tmp_path, capsys):
    """What the shell shows: ``CommandError`` becomes one line on stderr and exit status 1."""
    case = next(case for case in CASES if case.id == "text-nul")
    folder = tmp_path / "files"
    folder.mkdir()
    for name, data in case.files.all_files():
        (folder / name).write_bytes(data)
    with pytest.raises(SystemExit) as exited:
        ManagementUtility(
            [
                "manage.py",
                "import_corpus",
                "text",
                "--name",
                "n",
                "--source-lang",
                "de",
                "--target-lang",
                "en",
                "--source",
                str(folder / "src.de"),
                "--ref",
                str(folder / "ref.en"),
            ]
        ).execute()
    assert exited.value.code == 1
    err = capsys.readouterr().err
    assert err.strip().splitlines() == ["CommandError: " + case.message]
    assert "Traceback" not in err


# --- found by fuzzing ---------------------------------------------------------------------------


def test_mqm_segment_ids_that_are_digits_but_not_numbers(tmp_path):
    """``'1²'.isdigit()`` is true, but int() cannot read it: the import failed with ValueError."""
    rows = [row.replace("\t10\t", "\t1²\t") for row in MQM_ROWS]
    import_files(_single("mqm-tsv", tsv(rows=rows)), tmp_path)
    ids = list(Segment.objects.order_by("index").values_list("seg_id", flat=True))
    assert ids == ["2", "1", "1²"]  # not all numbers: the order of the file


def test_mqm_segment_ids_in_other_scripts_sort_as_numbers(tmp_path):
    rows = [row.replace("\t10\t", "\t١٠\t") for row in MQM_ROWS]  # Arabic-Indic 10
    import_files(_single("mqm-tsv", tsv(rows=rows)), tmp_path)
    ids = list(Segment.objects.order_by("index").values_list("seg_id", flat=True))
    assert ids == ["1", "2", "١٠"]


def test_an_sgml_character_reference_of_thousands_of_digits_stays_as_written(tmp_path):
    """int() refuses more than 4300 digits: the import failed with ValueError."""
    reference = "&#" + "9" * 5000 + ";"
    files = _sgml_source(SGML_SOURCE.replace("Titulek", "Titulek " + reference))
    import_files(files, tmp_path)
    assert "Titulek " + reference in stored_texts()


def test_exports_of_long_names_have_file_names_a_file_system_takes(client, admin_user):
    """A reference label of 100 'č' is 600 characters percent-encoded: the SGML and text
    exports failed with OSError (file name too long)."""
    label = "č" * LABEL
    files = _text(system_names=("X", "Y"))
    client.force_login(admin_user)
    response = post_files(client, files)
    assert response.status_code == 302
    Reference.objects.update(label=label)  # as an SGML import with this refid stores it
    test_set = TestSet.objects.get()
    for export_format in ("text", "sgml", "wmt-xml", "evaltrans-xml", "mqm-tsv"):
        url = reverse("corpora:test_set_export", args=[test_set.pk, export_format])
        assert client.get(url).status_code == 200, export_format
