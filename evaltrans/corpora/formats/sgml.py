"""NIST / WMT mteval SGML: one ``<srcset>``, ``<refset>`` or ``<tstset>`` per file.

::

    <srcset setid="newstest2021" srclang="cs">
    <doc docid="doc1" genre="news" origlang="cs">
    <p>
    <seg id="1">Dobrý den &amp; vítejte</seg>
    </p>
    </doc>
    </srcset>

SGML is not XML, so this is a tolerant regular-expression scanner in the spirit of mteval's
plain-SGML branch (no DTD, no external anything): tag and attribute names are
case-insensitive, attribute values may be unquoted, wrapper tags such as ``<p>`` and ``<hl>``
are ignored, and the text of a ``<seg>`` is trimmed. Only the entities ``&amp; &lt; &gt;
&quot; &apos;`` and numeric ``&#…;`` are decoded; any other ``&`` stays as written. Text
outside ``<seg>`` elements, a ``<seg>`` that is not closed, or misnested sets and documents
are errors with their line.

Names: a reference's label is the ``refid`` (else ``translator``) attribute of its
``<refset>``, else the ``sysid`` of its documents, else ``ref-N`` for the N-th reference file;
``reference_labels`` overrides all of these. A system's name is the ``sysid`` of its
``<tstset>``, else that of its documents. Every reference and system file must contain exactly
the documents and segments of the source (matched by ``docid`` and ``seg id``; order may
differ). Segments follow the source file's order.

Metadata: ``set_id`` (the ``setid``) and ``documents`` (document id → its attributes other
than ``docid`` and ``sysid``, e.g. ``genre`` and ``origlang``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .base import CorpusData, CorpusFormatError, InputFile, SegmentData
from .common import MISSING_TEXT, check_names, group_documents, safe_filename, write_file
from .reading import (
    DEFAULT_ENCODING,
    NO_LIMITS,
    FieldLimits,
    check_line_ends,
    is_blank,
    read_text,
    unstorable_problem,
)

TEXT_OUTSIDE_SEG = "text outside a <seg> element: {text!r}"
UNCLOSED_SEG = "<seg> is not closed by </seg>"
STRAY_CLOSE = "</{name}> without a matching <{name}>"
DOC_OUTSIDE_SET = "<doc> outside the <{expected}> element"
NESTED_DOC = "<doc> inside the <doc> of line {line} (is a </doc> missing?)"
SEG_OUTSIDE_DOC = "<seg> outside a <doc> element"
UNCLOSED = "<{name}> opened on line {line} is not closed"
WRONG_SET = "expected a <{expected}> element, found <{found}>"
NO_SET = "no <{expected}> element found"
SECOND_SET = "a second <{name}>: put each set in its own file"
MISSING_ATTRIBUTE = "<{element}> has no {attribute} attribute"
DUPLICATE_DOC = "document {doc!r} appears twice"
NO_SEGMENTS = "document {doc!r} has no segments"
DUPLICATE_SEG = "segment id {seg!r} appears twice in document {doc!r}"
EMPTY_SEGMENT = "segment {seg!r} of document {doc!r} is empty"
NO_SYSTEM_NAME = "no system name: give the <tstset> (or its documents) a sysid attribute"
MIXED_SYSIDS = "documents name different systems (sysid {first!r} and {second!r})"
MISSING_DOC = "document {doc!r} of the source file {source} is missing"
EXTRA_DOC = "document {doc!r} is not in the source file {source}"
MISSING_SEG = "segment {seg!r} of document {doc!r} (in the source file {source}) is missing"
EXTRA_SEG = "segment {seg!r} of document {doc!r} is not in the source file {source}"
LANGUAGE_MISMATCH = "target language {found!r} differs from {expected!r} of {other}"
NO_TRANSLATIONS = "give at least one reference or system file"
LABEL_COUNT = "{count} reference labels given for {files} reference files"
UNSTORABLE_REFERENCE = "character reference: {problem}"

SET_ELEMENTS = ("srcset", "refset", "tstset")

_TOKEN = re.compile(
    r"""(?P<comment><!--.*?-->)
      | (?P<decl><![^>]*>|<\?.*?\?>)
      | (?P<seg><seg\b(?P<seg_attrs>[^>]*)>(?P<seg_text>.*?)</seg\s*>)
      | (?P<tag><(?P<close>/)?(?P<name>[A-Za-z][\w.:-]*)(?P<attrs>[^>]*)>)""",
    re.DOTALL | re.IGNORECASE | re.VERBOSE,
)
_ATTRIBUTE = re.compile(r"""([\w.:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")
_STRUCTURE_TAG = re.compile(r"</?(?:seg|doc|srcset|refset|tstset)\b", re.IGNORECASE)
# ASCII digits only, and no more than a code point can have (after leading zeros): longer
# references, which ``int()`` may refuse outright, stay as written like any other "&".
_ENTITY = re.compile(r"&(?:(amp|lt|gt|quot|apos)|#0*([0-9]{1,7})|#[xX]0*([0-9a-fA-F]{1,6}));")
_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}


@dataclass
class SgmlDocument:
    """One ``<doc>``: id, attributes, line, and its segments (id -> (text, line)) in order."""

    doc_id: str
    attributes: dict[str, str]
    line: int
    segments: dict[str, tuple[str, int]] = field(default_factory=dict)


@dataclass
class SgmlSet:
    """The one set element of a file with its documents in file order."""

    file: InputFile
    kind: str
    attributes: dict[str, str]
    documents: dict[str, SgmlDocument] = field(default_factory=dict)


def unescape(text: str) -> str:
    """Decode the XML entities and numeric character references; leave any other ``&`` alone."""

    def replace(match: re.Match) -> str:
        named, decimal, hexadecimal = match.groups()
        if named:
            return _NAMED[named]
        code = int(decimal) if decimal else int(hexadecimal, 16)
        return chr(code) if 0 < code <= 0x10FFFF else match.group()

    return _ENTITY.sub(replace, text)


def escape(text: str) -> str:
    """Escape ``& < > "`` so that :func:`unescape` gives the text back.

    A CR becomes ``&#13;``: the reader refuses a bare CR as a classic Mac OS line end.
    """
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("\r", "&#13;")
    )


def _attributes(raw: str) -> dict[str, str]:
    return {
        match.group(1).lower(): unescape(next(v for v in match.groups()[1:] if v is not None))
        for match in _ATTRIBUTE.finditer(raw)
    }


def read_set(
    file: InputFile,
    expected: str,
    *,
    encoding: str = DEFAULT_ENCODING,
    max_bytes: int | None = None,
    limits: FieldLimits = NO_LIMITS,
) -> SgmlSet:
    """Scan one SGML file holding one ``<expected>`` set element.

    Raises:
        CorpusFormatError: any structural problem, a name or id too long to store, or a
            character reference to a character that cannot be stored, with its line.
    """
    text = read_text(file, encoding=encoding, max_bytes=max_bytes)
    check_line_ends(file, text)
    scanner = _Scanner(file, text, expected, limits)
    return scanner.run()


class _Scanner:
    """Walks the tokens of one file, keeping which set and document are open."""

    def __init__(self, file: InputFile, text: str, expected: str, limits: FieldLimits) -> None:
        self.file, self.text, self.expected, self.limits = file, text, expected, limits
        # The limit each attribute is held to (FieldLimits fields); a sysid names a reference's
        # label or a system, depending on the file.
        self.attribute_kinds = {
            "refid": "reference",
            "translator": "reference",
            "sysid": "reference" if expected == "refset" else "system",
            "srclang": "language",
            "trglang": "language",
        }
        self.result: SgmlSet | None = None
        self.set_line = 0
        self.document: SgmlDocument | None = None

    def error(self, message: str, position: int) -> CorpusFormatError:
        return CorpusFormatError(
            self.file.name, message, line=self.text.count("\n", 0, position) + 1
        )

    def run(self) -> SgmlSet:
        position = 0
        for match in _TOKEN.finditer(self.text):
            self._check_gap(position, match.start())
            position = match.end()
            if match.group("seg"):
                self._segment(match)
            elif match.group("tag"):
                self._tag(match)
        self._check_gap(position, len(self.text))
        if self.document is not None:
            raise self.error(UNCLOSED.format(name="doc", line=self.document.line), len(self.text))
        if self.result is None:
            raise CorpusFormatError(self.file.name, NO_SET.format(expected=self.expected))
        if self.set_line:
            raise self.error(
                UNCLOSED.format(name=self.expected, line=self.set_line), len(self.text)
            )
        return self.result

    def _check_gap(self, start: int, end: int) -> None:
        gap = self.text[start:end]
        if gap.strip():
            offset = start + len(gap) - len(gap.lstrip())
            raise self.error(TEXT_OUTSIDE_SEG.format(text=gap.strip()[:40]), offset)

    def _line(self, position: int) -> int:
        return self.text.count("\n", 0, position) + 1

    def _checked(self, value: str, position: int, kind: str | None = None) -> str:
        """``value`` (entities decoded) if it can be stored, else an error at its line."""
        problem = unstorable_problem(value)
        if problem is not None:
            raise self.error(UNSTORABLE_REFERENCE.format(problem=problem), position)
        if kind is not None:
            problem = self.limits.problem(kind, value)
            if problem is not None:
                raise self.error(problem, position)
        return value

    def _attributes(self, match: re.Match, group: str = "attrs") -> dict[str, str]:
        """The attributes of a tag, each checked as it will be stored."""
        return {
            name: self._checked(value, match.start(), self.attribute_kinds.get(name))
            for name, value in _attributes(match.group(group)).items()
        }

    def _tag(self, match: re.Match) -> None:
        name, closing = match.group("name").lower(), bool(match.group("close"))
        if name == "seg":
            raise self.error(
                STRAY_CLOSE.format(name="seg") if closing else UNCLOSED_SEG, match.start()
            )
        if name in SET_ELEMENTS:
            self._set_tag(match, name, closing)
        elif name == "doc":
            self._doc_tag(match, closing)
        # Any other tag (<p>, <hl>, <h1> …) only wraps segments: ignored, like mteval does.

    def _set_tag(self, match: re.Match, name: str, closing: bool) -> None:
        if closing:
            if not self.set_line or name != self.expected:
                raise self.error(STRAY_CLOSE.format(name=name), match.start())
            if self.document is not None:
                raise self.error(
                    UNCLOSED.format(name="doc", line=self.document.line), match.start()
                )
            self.set_line = 0
            return
        if name != self.expected:
            raise self.error(WRONG_SET.format(expected=self.expected, found=name), match.start())
        if self.result is not None:
            raise self.error(SECOND_SET.format(name=name), match.start())
        self.result = SgmlSet(self.file, name, self._attributes(match))
        self.set_line = self._line(match.start())

    def _doc_tag(self, match: re.Match, closing: bool) -> None:
        if closing:
            if self.document is None:
                raise self.error(STRAY_CLOSE.format(name="doc"), match.start())
            self.document = None
            return
        if not self.set_line:
            raise self.error(DOC_OUTSIDE_SET.format(expected=self.expected), match.start())
        if self.document is not None:
            raise self.error(NESTED_DOC.format(line=self.document.line), match.start())
        attributes = self._attributes(match)
        doc_id = attributes.pop("docid", "")
        if is_blank(doc_id):
            raise self.error(
                MISSING_ATTRIBUTE.format(element="doc", attribute="docid"), match.start()
            )
        self._checked(doc_id, match.start(), "doc_id")
        if doc_id in self.result.documents:
            raise self.error(DUPLICATE_DOC.format(doc=doc_id), match.start())
        self.document = SgmlDocument(doc_id, attributes, self._line(match.start()))
        self.result.documents[doc_id] = self.document

    def _segment(self, match: re.Match) -> None:
        raw_text = match.group("seg_text")
        if _STRUCTURE_TAG.search(raw_text):
            raise self.error(UNCLOSED_SEG, match.start())
        if self.document is None:
            raise self.error(SEG_OUTSIDE_DOC, match.start())
        document = self.document
        seg_id = self._attributes(match, "seg_attrs").get("id") or str(len(document.segments) + 1)
        self._checked(seg_id, match.start(), "seg_id")
        if seg_id in document.segments:
            raise self.error(DUPLICATE_SEG.format(seg=seg_id, doc=document.doc_id), match.start())
        text = self._checked(unescape(raw_text).strip(), match.start())
        if is_blank(text):
            raise self.error(EMPTY_SEGMENT.format(seg=seg_id, doc=document.doc_id), match.start())
        document.segments[seg_id] = (text, self._line(match.start()))


def parse_sgml(
    *,
    source: InputFile,
    references: list[InputFile],
    systems: list[InputFile],
    encoding: str = DEFAULT_ENCODING,
    max_bytes: int | None = None,
    reference_labels: list[str] | None = None,
    limits: FieldLimits = NO_LIMITS,
) -> CorpusData:
    """Read an mteval source file with its reference and system (test set) files.

    Args:
        source: the ``<srcset>`` file.
        references: ``<refset>`` files, one reference each.
        systems: ``<tstset>`` files, one system each.
        encoding: encoding of every file.
        max_bytes: size limit per file (``None``: no limit).
        reference_labels: labels for ``references`` in the same order, overriding the files'
            ``refid`` / ``sysid`` (useful when every file says ``sysid="ref"``).
        limits: the longest names, ids and language codes that can be stored.

    Returns:
        The corpus in source order, with ``set_id`` and ``documents`` in its metadata.

    Raises:
        CorpusFormatError: malformed SGML, missing attributes, repeated names, or a reference or
            system whose documents and segments differ from the source's.
    """
    if not references and not systems:
        raise CorpusFormatError(source.name, NO_TRANSLATIONS)
    if reference_labels is not None and len(reference_labels) != len(references):
        raise CorpusFormatError(
            source.name, LABEL_COUNT.format(count=len(reference_labels), files=len(references))
        )
    source_set = read_set(source, "srcset", encoding=encoding, max_bytes=max_bytes, limits=limits)
    source_lang = _required(source_set, "srclang")
    for document in source_set.documents.values():
        if not document.segments:
            raise CorpusFormatError(
                source.name, NO_SEGMENTS.format(doc=document.doc_id), line=document.line
            )
    reference_sets = [
        read_set(f, "refset", encoding=encoding, max_bytes=max_bytes, limits=limits)
        for f in references
    ]
    system_sets = [
        read_set(f, "tstset", encoding=encoding, max_bytes=max_bytes, limits=limits)
        for f in systems
    ]

    labels = reference_labels or [_reference_label(s, i) for i, s in enumerate(reference_sets, 1)]
    names = [_system_name(s) for s in system_sets]
    check_names(
        [(label, s.file.name) for label, s in zip(labels, reference_sets, strict=True)],
        [(name, s.file.name) for name, s in zip(names, system_sets, strict=True)],
        limits,
    )
    target_lang = _target_language(reference_sets + system_sets)
    for translation_set in reference_sets + system_sets:
        _check_coverage(source_set, translation_set)

    segments = []
    for doc_id, document in source_set.documents.items():
        for seg_id, (text, _line) in document.segments.items():
            segments.append(
                SegmentData(
                    source=text,
                    doc_id=doc_id,
                    seg_id=seg_id,
                    references={
                        label: s.documents[doc_id].segments[seg_id][0]
                        for label, s in zip(labels, reference_sets, strict=True)
                    },
                    candidates={
                        name: s.documents[doc_id].segments[seg_id][0]
                        for name, s in zip(names, system_sets, strict=True)
                    },
                )
            )
    metadata = {"documents": {d.doc_id: d.attributes for d in source_set.documents.values()}}
    if "setid" in source_set.attributes:
        metadata["set_id"] = source_set.attributes["setid"]
    return CorpusData(source_lang, target_lang, segments, metadata=metadata)


def _required(sgml_set: SgmlSet, attribute: str) -> str:
    value = sgml_set.attributes.get(attribute, "").strip()
    if is_blank(value):
        raise CorpusFormatError(
            sgml_set.file.name, MISSING_ATTRIBUTE.format(element=sgml_set.kind, attribute=attribute)
        )
    return value


def _document_sysid(sgml_set: SgmlSet) -> str:
    """The ``sysid`` shared by all documents ("" if none); differing ones are an error."""
    found = ""
    for document in sgml_set.documents.values():
        sysid = document.attributes.pop("sysid", "")
        if sysid and found and sysid != found:
            raise CorpusFormatError(
                sgml_set.file.name,
                MIXED_SYSIDS.format(first=found, second=sysid),
                line=document.line,
            )
        found = found or sysid
    return found


def _reference_label(sgml_set: SgmlSet, position: int) -> str:
    attributes = sgml_set.attributes
    from_docs = _document_sysid(sgml_set)
    return attributes.get("refid") or attributes.get("translator") or from_docs or f"ref-{position}"


def _system_name(sgml_set: SgmlSet) -> str:
    name = sgml_set.attributes.get("sysid") or _document_sysid(sgml_set)
    if not name:
        raise CorpusFormatError(sgml_set.file.name, NO_SYSTEM_NAME)
    return name


def _target_language(translation_sets: list[SgmlSet]) -> str:
    target_lang = _required(translation_sets[0], "trglang")
    for other in translation_sets[1:]:
        found = _required(other, "trglang")
        if found != target_lang:
            raise CorpusFormatError(
                other.file.name,
                LANGUAGE_MISMATCH.format(
                    found=found, expected=target_lang, other=translation_sets[0].file.name
                ),
            )
    return target_lang


def _check_coverage(source_set: SgmlSet, other: SgmlSet) -> None:
    """The documents and segment ids of ``other`` must be exactly those of the source."""
    source_name, name = source_set.file.name, other.file.name
    for doc_id, document in other.documents.items():
        if doc_id not in source_set.documents:
            raise CorpusFormatError(
                name, EXTRA_DOC.format(doc=doc_id, source=source_name), line=document.line
            )
        for seg_id, (_text, line) in document.segments.items():
            if seg_id not in source_set.documents[doc_id].segments:
                raise CorpusFormatError(
                    name, EXTRA_SEG.format(seg=seg_id, doc=doc_id, source=source_name), line=line
                )
    for doc_id, source_document in source_set.documents.items():
        if doc_id not in other.documents:
            raise CorpusFormatError(name, MISSING_DOC.format(doc=doc_id, source=source_name))
        for seg_id in source_document.segments:
            if seg_id not in other.documents[doc_id].segments:
                raise CorpusFormatError(
                    name,
                    MISSING_SEG.format(seg=seg_id, doc=doc_id, source=source_name),
                    line=other.documents[doc_id].line,
                )


def write_sgml(corpus: CorpusData, out_dir: Path) -> list[Path]:
    """Write ``source.<src>.sgm``, ``ref.<label>.<tgt>.sgm`` and ``<system>.<tgt>.sgm`` files.

    Reference files carry ``refid`` = label, system files ``sysid`` = name (on the set and on
    every document, as mteval expects), so :func:`parse_sgml` reads the names back.

    Returns:
        The written paths: source, references, systems.

    Raises:
        CorpusFormatError: a reference or system lacks a segment, or documents are split.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    taken: set[str] = set()
    documents = group_documents(corpus, "SGML export")
    doc_attributes = corpus.metadata.get("documents", {})
    set_attributes = {}
    set_id = corpus.metadata.get("set_id") or corpus.name
    if set_id:
        set_attributes["setid"] = set_id
    set_attributes["srclang"] = corpus.source_lang

    def write(
        path: Path, kind: str, extra: dict[str, str], sysid: str, get, what: str = ""
    ) -> Path:
        lines = [f"<{kind}{_attributes_sgml({**set_attributes, **extra})}>"]
        for doc_id, segments in documents:
            attributes = {"docid": doc_id, **doc_attributes.get(doc_id, {})}
            if sysid:
                attributes["sysid"] = sysid
            lines.append(f"<doc{_attributes_sgml(attributes)}>")
            for seg_id, segment in segments:
                text = get(segment)
                if text is None:
                    raise CorpusFormatError(
                        path.name,
                        MISSING_TEXT.format(kind=what, name=sysid, seg=seg_id, doc=doc_id),
                    )
                lines.append(f'<seg id="{escape(seg_id)}">{escape(text)}</seg>')
            lines.append("</doc>")
        lines.append(f"</{kind}>")
        return write_file(path, "\n".join(lines) + "\n")

    target = {"trglang": corpus.target_lang}
    paths = [
        write(
            out_dir / safe_filename("source", taken, suffix=f".{corpus.source_lang}.sgm"),
            "srcset",
            {},
            "",
            lambda segment: segment.source,
        )
    ]
    for label in corpus.reference_labels:
        path = out_dir / safe_filename(
            label, taken, prefix="ref.", suffix=f".{corpus.target_lang}.sgm"
        )
        paths.append(
            write(
                path,
                "refset",
                {**target, "refid": label},
                label,
                lambda segment, label=label: segment.references.get(label),
                "reference",
            )
        )
    for system in corpus.system_names:
        path = out_dir / safe_filename(system, taken, suffix=f".{corpus.target_lang}.sgm")
        paths.append(
            write(
                path,
                "tstset",
                {**target, "sysid": system},
                system,
                lambda segment, system=system: segment.candidates.get(system),
                "system",
            )
        )
    return paths


def _attributes_sgml(attributes: dict[str, str]) -> str:
    return "".join(f' {name}="{escape(value)}"' for name, value in attributes.items())
