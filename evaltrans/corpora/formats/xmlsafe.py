"""Safe XML reading (defusedxml, with line numbers) and escaping for the XML writers.

Uploaded XML is untrusted: entity declarations (billion laughs) and external entities are
refused by defusedxml before anything is expanded. A DOCTYPE without entities, such as the
EvalTrans header ``<!DOCTYPE etdb SYSTEM "etdb.dtd">``, is accepted and never fetched.

The encoding is taken from the ``encoding`` argument if given, else from the XML declaration,
else UTF-8; the bytes are decoded by :mod:`.reading` so that a bad byte is reported with its
line and the ``--encoding`` hint, and the parser then reads the decoded text.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser

from .base import CorpusFormatError, InputFile
from .reading import DEFAULT_ENCODING, UNSTORABLE_CHARACTER, encoding_problem, read_text

ENTITIES_REFUSED = "refused: XML entity declarations are not allowed (entity {name!r})"
XML_REFUSED = "refused: unsafe XML ({reason})"
MALFORMED_XML = "malformed XML: {reason} (column {column})"
UNWRITABLE_CHARACTER = "character U+{code:04X} cannot be written to an XML file"
DECLARED_ENCODING = "the XML declaration names encoding {encoding!r}: {problem}"

_DECLARED_ENCODING = re.compile(
    rb"""^(?:\xef\xbb\xbf)?<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']"""
)
_DESCRIBED_LENGTH = 40


@dataclass
class XmlDocument:
    """A parsed XML file: its root element and the start line of every element."""

    file: InputFile
    root: ET.Element
    lines: dict[ET.Element, int]

    def error(
        self, message: str, element: ET.Element | None = None, where: str = ""
    ) -> CorpusFormatError:
        """A CorpusFormatError for this file at ``element`` (its line) described by ``where``."""
        line = self.lines.get(element) if element is not None else None
        return CorpusFormatError(self.file.name, message, line=line, element=where)


class _LineTreeBuilder(ET.TreeBuilder):
    """Records the line each element starts on (ElementTree itself keeps no positions)."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: dict[ET.Element, int] = {}
        self.parser: DefusedXMLParser | None = None

    def start(self, tag: str, attrs: dict[str, str]) -> ET.Element:
        element = super().start(tag, attrs)
        self.lines[element] = self.parser.parser.CurrentLineNumber
        return element


def declared_encoding(data: bytes) -> str | None:
    """The encoding named in the XML declaration, if any."""
    match = _DECLARED_ENCODING.match(data)
    return match.group(1).decode("ascii") if match else None


def parse_xml(
    file: InputFile, *, encoding: str | None = None, max_bytes: int | None = None
) -> XmlDocument:
    """Parse ``file`` safely.

    Raises:
        CorpusFormatError: too large, undecodable (also a declared encoding that is not one of
            text), holding a character that cannot be stored, empty, malformed (with the
            parser's line), or containing entity declarations / external entities.
    """
    if not encoding:
        declared = declared_encoding(file.data)
        problem = encoding_problem(declared) if declared else None
        if problem is not None:
            raise CorpusFormatError(
                file.name, DECLARED_ENCODING.format(encoding=declared, problem=problem), line=1
            )
        encoding = declared
    text = read_text(file, encoding=encoding or DEFAULT_ENCODING, max_bytes=max_bytes)
    builder = _LineTreeBuilder()
    parser = DefusedXMLParser(
        target=builder, forbid_dtd=False, forbid_entities=True, forbid_external=True
    )
    builder.parser = parser
    try:
        parser.feed(text)
        root = parser.close()
    except DefusedXmlException as error:
        name = getattr(error, "name", None)
        if name is None:
            raise CorpusFormatError(file.name, XML_REFUSED.format(reason=error)) from None
        raise CorpusFormatError(
            file.name, ENTITIES_REFUSED.format(name=name), line=_line_of_entity(text, name)
        ) from None
    except ET.ParseError as error:
        line, column = error.position
        reason = str(error).split(": line ")[0]
        raise CorpusFormatError(
            file.name, MALFORMED_XML.format(reason=reason, column=column), line=line
        ) from None
    return XmlDocument(file=file, root=root, lines=builder.lines)


def describe(element: ET.Element, keys: tuple[str, ...]) -> str:
    """``<tag key="value">`` with the first of ``keys`` the element has, for error locations;
    a long value is cut, as the message itself says what is wrong with it."""
    for key in keys:
        if key in element.attrib:
            value = element.attrib[key]
            if len(value) > _DESCRIBED_LENGTH:
                value = value[:_DESCRIBED_LENGTH] + "…"
            return f'<{element.tag} {key}="{value}">'
    return f"<{element.tag}>"


def _line_of_entity(text: str, name: str) -> int | None:
    match = re.search(r"<!ENTITY\s+(?:%\s*)?" + re.escape(name) + r"\b", text)
    return text.count("\n", 0, match.start()) + 1 if match else None


def check_xml_text(value: str, out_name: str, where: str) -> None:
    """Refuse characters that XML 1.0 cannot carry (control characters, lone surrogates).

    Raises:
        CorpusFormatError: naming the output file and the element.
    """
    match = UNSTORABLE_CHARACTER.search(value)
    if match:
        raise CorpusFormatError(
            out_name, UNWRITABLE_CHARACTER.format(code=ord(match.group())), element=where
        )


def escape_text(value: str) -> str:
    """Escape element content; ``\\r`` as a reference so parsing does not turn it into ``\\n``."""
    return (
        value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\r", "&#13;")
    )


def escape_attribute(value: str) -> str:
    """Escape a double-quoted attribute value; whitespace controls survive attribute normalisation."""
    return escape_text(value).replace('"', "&quot;").replace("\n", "&#10;").replace("\t", "&#9;")


def attributes_xml(attributes: dict[str, str]) -> str:
    """`` name="value"`` pairs in the given order (leading space included when not empty)."""
    return "".join(f' {name}="{escape_attribute(value)}"' for name, value in attributes.items())
