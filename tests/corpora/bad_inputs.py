"""Valid corpora of every import format and the bad-input cases of each, shared by the tests of
the upload form and of ``import_corpus``, so both channels are held to the same messages.

A :class:`CorpusFiles` is one import as both channels take it (files by role, languages); the
web test turns it into uploads, the command test into files on disk and options.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from evaltrans.corpora.formats import common, mqm_tsv, reading, sgml, text, wmt_xml, xmlsafe
from evaltrans.corpora.models import (
    Candidate,
    RawEvaluation,
    Reference,
    Segment,
    System,
    TestSet,
)

from . import conftest
from .test_formats_errors import BOMB, EXTERNAL
from .test_formats_errors import EVALTRANS as EVALTRANS_SAMPLE
from .test_formats_mqm_tsv import HEADER as MQM_HEADER
from .test_formats_mqm_tsv import ROWS as MQM_ROWS
from .test_formats_mqm_tsv import tsv
from .test_formats_sgml import REFERENCE as SGML_REFERENCE
from .test_formats_sgml import SOURCE as SGML_SOURCE
from .test_formats_sgml import SYSTEM as SGML_SYSTEM
from .test_formats_wmt_xml import SAMPLE as WMT_SAMPLE

NamedBytes = tuple[str, bytes]

# Above every valid sample below, below every padded file.
SIZE_LIMIT = 4000


@dataclass(frozen=True)
class CorpusFiles:
    """The files of one import by role, and the options besides the files."""

    format: str
    source: NamedBytes | None = None
    references: tuple[NamedBytes, ...] = ()
    systems: tuple[NamedBytes, ...] = ()
    system_names: tuple[str, ...] = ()
    """Text format: one name per system file (other formats name systems inside the files)."""
    file: NamedBytes | None = None
    source_lang: str = ""
    target_lang: str = ""

    def all_files(self) -> list[NamedBytes]:
        single = [named for named in (self.source, self.file) if named is not None]
        return single + list(self.references) + list(self.systems)

    def size_of(self, name: str) -> int:
        return next(len(data) for file_name, data in self.all_files() if file_name == name)


@dataclass(frozen=True)
class BadInput:
    """A corpus one file of which is wrong, and what the user must be told.

    ``message`` is the complete ``FILE[, line N][, <element>]: what`` of a parser error. A case
    with ``oversized`` instead is about the size limit: that file is above :data:`SIZE_LIMIT`
    and each channel words the refusal itself. ``encoding`` names the encoding that makes the
    same files import, and ``decoded`` a text that must then be stored.
    """

    id: str
    files: CorpusFiles
    message: str = ""
    oversized: str = ""
    encoding: str = ""
    decoded: str = ""


def utf8(data: str) -> bytes:
    return data.encode("utf-8")


def lines(items: list[str]) -> bytes:
    return utf8("\n".join(items) + "\n")


VALID = {
    "text": CorpusFiles(
        "text",
        source=("src.de", lines(conftest.SOURCE)),
        references=(("ref.en", lines(conftest.REF_A)),),
        systems=(("sysX.en", lines(conftest.SYS_X)), ("sysY.en", lines(conftest.SYS_Y))),
        system_names=("X", "Y"),
        source_lang="de",
        target_lang="en",
    ),
    "sgml": CorpusFiles(
        "sgml",
        source=("src.sgm", utf8(SGML_SOURCE)),
        references=(("ref.sgm", utf8(SGML_REFERENCE)),),
        systems=(("online-b.sgm", utf8(SGML_SYSTEM)),),
    ),
    "wmt-xml": CorpusFiles("wmt-xml", file=("test.xml", utf8(WMT_SAMPLE))),
    "evaltrans-xml": CorpusFiles(
        "evaltrans-xml", file=("db.xml", utf8(EVALTRANS_SAMPLE)), source_lang="de", target_lang="en"
    ),
    "mqm-tsv": CorpusFiles("mqm-tsv", file=("mqm.tsv", tsv()), source_lang="en", target_lang="de"),
}


def at(where: str, message: str, line: int | None = None, element: str = "") -> str:
    """The full message a user sees, built like CorpusFormatError builds it."""
    line_part = f", line {line}" if line else ""
    element_part = f", {element}" if element else ""
    return f"{where}{line_part}{element_part}: {message}"


def _text(**changes: object) -> CorpusFiles:
    return replace(VALID["text"], **changes)


def _sgml(**changes: object) -> CorpusFiles:
    return replace(VALID["sgml"], **changes)


def _single(import_format: str, data: str | bytes) -> CorpusFiles:
    name = VALID[import_format].file[0]
    return replace(VALID[import_format], file=(name, utf8(data) if isinstance(data, str) else data))


def _sgml_system(*texts: str) -> tuple[NamedBytes, ...]:
    return tuple((f"sys{number}.sgm", utf8(data)) for number, data in enumerate(texts, start=1))


def _padded_comment(size: int) -> str:
    return "\n<!-- " + "x" * size + " -->\n"


MALFORMED_XML = '<?xml version="1.0"?>\n<dataset>\n<doc id="a">\n</dataset>\n'
LATIN1_LINES = "Guten Morgen.\nGrüße!\nDas ist gut.\n".encode("latin-1")
CP1250_SGML = utf8(SGML_SOURCE).replace(utf8("Tučně"), "Tučně".encode("cp1250"))
CP1250_WMT = utf8(WMT_SAMPLE).replace(utf8("Tři"), "Tři".encode("cp1250"))
LATIN1_EVALTRANS = utf8(EVALTRANS_SAMPLE).replace(
    b"<s_sent>S</s_sent>", "<s_sent>Grüße</s_sent>".encode("latin-1")
)
LATIN1_MQM = tsv(rows=[row.replace("Erste", "Größte") for row in MQM_ROWS]).replace(
    utf8("Größte"), "Größte".encode("latin-1")
)
EVALTRANS_LINE_5 = EVALTRANS_SAMPLE.replace("</targets>", "").split("\n")[4]
WMT_HYP_D2 = '<hyp lang="en" system="Online-B"><p><seg id="1">One!</seg></p></hyp>'
LONG_SENTENCE = "A very long sentence. " * 200

BAD_INPUTS = [
    # --- text ---
    BadInput(
        "text-line-count",
        _text(systems=(("sysX.en", lines(conftest.SYS_X)), ("sysY.en", lines(["one", "two"])))),
        at(
            "sysY.en",
            text.LINE_COUNT_MISMATCH.format(
                file="sysY.en", count=2, source="src.de", source_count=3
            ),
        ),
    ),
    BadInput(
        "text-empty-file",
        _text(references=(("ref.en", b""),)),
        at("ref.en", reading.EMPTY_FILE),
    ),
    BadInput(
        "text-empty-line",
        _text(references=(("ref.en", lines(["Good morning.", "  ", "Good."])),)),
        at("ref.en", reading.EMPTY_LINE, line=2),
    ),
    BadInput(
        "text-invalid-utf8",
        _text(source=("src.de", LATIN1_LINES)),
        at("src.de", reading.BAD_ENCODING.format(encoding="utf-8", byte=0xFC), line=2),
        encoding="latin-1",
        decoded="Grüße!",
    ),
    BadInput(
        "text-duplicate-system",
        _text(system_names=("X", "X")),
        at("sysY.en", common.DUPLICATE_SYSTEM.format(name="X")),
    ),
    BadInput(
        "text-too-large",
        _text(
            systems=(("sysX.en", lines(conftest.SYS_X)), ("sysY.en", lines([LONG_SENTENCE] * 3)))
        ),
        oversized="sysY.en",
    ),
    # --- sgml ---
    BadInput(
        "sgml-empty-file",
        _sgml(references=(("ref.sgm", b""),)),
        at("ref.sgm", reading.EMPTY_FILE),
    ),
    BadInput(
        "sgml-invalid-utf8",
        _sgml(source=("src.sgm", CP1250_SGML)),
        at("src.sgm", reading.BAD_ENCODING.format(encoding="utf-8", byte=0xE8), line=5),
        encoding="cp1250",
        decoded='<b>Tučně</b> "ano"',
    ),
    BadInput(
        "sgml-malformed",
        _sgml(source=("src.sgm", utf8(SGML_SOURCE.replace("vítejte</seg>", "vítejte")))),
        at("src.sgm", sgml.UNCLOSED_SEG, line=4),
    ),
    BadInput(
        "sgml-duplicate-system",
        _sgml(systems=_sgml_system(SGML_SYSTEM, SGML_SYSTEM)),
        at("sys2.sgm", common.DUPLICATE_SYSTEM.format(name="Online-B")),
    ),
    BadInput(
        "sgml-other-segments",
        _sgml(systems=_sgml_system(SGML_SYSTEM.replace("<SEG id=2>", "<SEG id=3>"))),
        at("sys1.sgm", sgml.EXTRA_SEG.format(seg="3", doc="doc1", source="src.sgm"), line=4),
    ),
    BadInput(
        "sgml-too-large",
        _sgml(source=("src.sgm", utf8(SGML_SOURCE + _padded_comment(SIZE_LIMIT)))),
        oversized="src.sgm",
    ),
    # --- wmt-xml ---
    BadInput("wmt-xml-empty-file", _single("wmt-xml", b""), at("test.xml", reading.EMPTY_FILE)),
    BadInput(
        "wmt-xml-invalid-utf8",
        _single("wmt-xml", CP1250_WMT),
        at("test.xml", reading.BAD_ENCODING.format(encoding="utf-8", byte=0xF8), line=7),
        encoding="cp1250",
        decoded="Tři",
    ),
    BadInput(
        "wmt-xml-malformed",
        _single("wmt-xml", MALFORMED_XML),
        at("test.xml", xmlsafe.MALFORMED_XML.format(reason="mismatched tag", column=2), line=4),
    ),
    BadInput(
        "wmt-xml-entity-bomb",
        _single("wmt-xml", BOMB),
        at("test.xml", xmlsafe.ENTITIES_REFUSED.format(name="lol"), line=3),
    ),
    BadInput(
        "wmt-xml-external-entity",
        _single("wmt-xml", EXTERNAL),
        at("test.xml", xmlsafe.ENTITIES_REFUSED.format(name="xxe"), line=2),
    ),
    BadInput(
        "wmt-xml-duplicate-system",
        _single("wmt-xml", WMT_SAMPLE.replace(WMT_HYP_D2, WMT_HYP_D2 + "\n" + WMT_HYP_D2)),
        at(
            "test.xml",
            wmt_xml.DUPLICATE_TRANSLATION.format(what="system", name="Online-B", doc="d2"),
            line=22,
            element='<hyp system="Online-B">',
        ),
    ),
    BadInput(
        "wmt-xml-other-segments",
        _single(
            "wmt-xml",
            WMT_SAMPLE.replace('<seg id="1">One!</seg>', '<seg id="2">One!</seg>'),
        ),
        at(
            "test.xml",
            wmt_xml.EXTRA_SEG.format(seg="2", doc="d2"),
            line=21,
            element='<seg id="2">',
        ),
    ),
    BadInput(
        "wmt-xml-too-large",
        _single("wmt-xml", WMT_SAMPLE + _padded_comment(SIZE_LIMIT)),
        oversized="test.xml",
    ),
    # --- evaltrans-xml ---
    BadInput(
        "evaltrans-xml-empty-file",
        _single("evaltrans-xml", b""),
        at("db.xml", reading.EMPTY_FILE),
    ),
    BadInput(
        "evaltrans-xml-invalid-utf8",
        _single("evaltrans-xml", LATIN1_EVALTRANS),
        at("db.xml", reading.BAD_ENCODING.format(encoding="utf-8", byte=0xFC), line=5),
        encoding="latin-1",
        decoded="Grüße",
    ),
    BadInput(
        "evaltrans-xml-malformed",
        _single("evaltrans-xml", EVALTRANS_SAMPLE.replace("</targets>", "")),
        at(
            "db.xml",
            # expat points at the name of the end tag that does not match.
            xmlsafe.MALFORMED_XML.format(
                reason="mismatched tag", column=EVALTRANS_LINE_5.index("</source>") + len("</")
            ),
            line=5,
        ),
    ),
    BadInput(
        "evaltrans-xml-entity-bomb",
        _single("evaltrans-xml", BOMB),
        at("db.xml", xmlsafe.ENTITIES_REFUSED.format(name="lol"), line=3),
    ),
    BadInput(
        "evaltrans-xml-external-entity",
        _single("evaltrans-xml", EXTERNAL),
        at("db.xml", xmlsafe.ENTITIES_REFUSED.format(name="xxe"), line=2),
    ),
    BadInput(
        "evaltrans-xml-too-large",
        _single("evaltrans-xml", EVALTRANS_SAMPLE + _padded_comment(SIZE_LIMIT)),
        oversized="db.xml",
    ),
    # --- mqm-tsv ---
    BadInput("mqm-tsv-empty-file", _single("mqm-tsv", b""), at("mqm.tsv", reading.EMPTY_FILE)),
    BadInput(
        "mqm-tsv-empty-line",
        _single("mqm-tsv", tsv(rows=[*MQM_ROWS[:3], "", *MQM_ROWS[3:]])),
        at("mqm.tsv", reading.EMPTY_LINE, line=5),
    ),
    BadInput(
        "mqm-tsv-invalid-utf8",
        _single("mqm-tsv", LATIN1_MQM),
        at("mqm.tsv", reading.BAD_ENCODING.format(encoding="utf-8", byte=0xF6), line=3),
        encoding="latin-1",
        decoded="Größte",
    ),
    BadInput(
        "mqm-tsv-unknown-column",
        _single("mqm-tsv", tsv(MQM_HEADER + "\tglobalSegId", [row + "\t7" for row in MQM_ROWS])),
        at(
            "mqm.tsv",
            mqm_tsv.UNKNOWN_COLUMN.format(name="globalSegId", columns=" ".join(mqm_tsv.COLUMNS)),
            line=1,
        ),
    ),
    BadInput(
        "mqm-tsv-other-segments",
        _single(
            "mqm-tsv", tsv(rows=[row for row in MQM_ROWS if not row.startswith("sysB\ttalk.2")])
        ),
        at("mqm.tsv", mqm_tsv.MISSING_ROW.format(system="sysB", seg="10")),
    ),
    BadInput(
        "mqm-tsv-too-large",
        _single(
            "mqm-tsv",
            tsv(rows=[MQM_ROWS[0].removesuffix("\t") + "\t" + LONG_SENTENCE, *MQM_ROWS[1:]]),
        ),
        oversized="mqm.tsv",
    ),
]


def database_counts() -> dict[str, int]:
    """Rows of every corpus table: an import refused must leave them all as they were."""
    models = (TestSet, Segment, Reference, System, Candidate, RawEvaluation)
    return {model.__name__: model.objects.count() for model in models}


def stored_texts() -> set[str]:
    """Every source, reference and candidate text in the database."""
    return (
        set(Segment.objects.values_list("source", flat=True))
        | set(Reference.objects.values_list("text", flat=True))
        | set(Candidate.objects.values_list("text", flat=True))
    )
