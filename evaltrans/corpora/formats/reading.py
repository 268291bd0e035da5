"""Reading and validation shared by every parser (test sets and judgments): size limit, decoding,
line splitting, and what can be stored.

All failures raise :class:`CorpusFormatError` naming the file (and the line where there is one),
so a user can fix the file without guessing. Lines are split on ``"\\n"`` only, with one
trailing ``"\\r"`` removed (Windows line ends); other Unicode line separators such as U+2028
or U+0085 are ordinary characters inside a sentence, because ``str.splitlines()`` would cut
sentences in two where other tools (sacrebleu, mteval) do not.

This module is the one place that decides what an import refuses whatever its format:

* encodings that are not encodings of text files (``rot13``, ``base64``, ``punycode`` …), and a
  UTF-16/32 choice for a file that cannot be UTF-16/32 (or the reverse);
* characters that XML 1.0 cannot carry (NUL and the other C0 controls except tab, LF and CR, lone
  surrogates, U+FFFE and U+FFFF): PostgreSQL refuses NUL, and the XML exports could not write
  the others;
* in line-based files, a CR that is not followed by LF (classic Mac OS line ends), which would
  otherwise make a whole file one line;
* lines and names holding only whitespace or invisible format characters (U+200B, U+FEFF …);
* names and ids longer than the database stores (:class:`FieldLimits`, filled from the model
  fields by the import entry points).
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from dataclasses import dataclass

from .base import CorpusFormatError, InputFile

DEFAULT_ENCODING = "utf-8"

TOO_LARGE = "the file has {size} bytes, more than the limit of {limit} bytes"
EMPTY_FILE = "the file is empty"
BAD_ENCODING = (
    "the file is not valid {encoding} (byte 0x{byte:02x} cannot be decoded); "
    "give the file's encoding with the encoding option (--encoding, or the form's Encoding "
    "field), e.g. latin-1"
)
UNKNOWN_ENCODING = "unknown encoding {encoding!r}"
NOT_TEXT_ENCODING = (
    "{encoding!r} is not an encoding of text files; give the encoding of the file's "
    "characters, e.g. utf-8, latin-1 or cp1250"
)
UNDECODABLE = "the file cannot be decoded as {encoding}: {reason}"
NOT_WIDE = (
    "the file does not look like {encoding}: it has no byte-order mark and not one zero byte, "
    "which {encoding} text always has; is it {guess}?"
)
LOOKS_WIDE = "the file looks like {guess} ({reason}), not {encoding}; {advice}"
GIVE_ENCODING = "give the encoding {guess}"
EMPTY_LINE = "empty line, but a sentence is required on every line"
BARE_CR = (
    "a carriage return (CR) not followed by a line feed: classic Mac OS line ends (CR only) "
    "are not read; save the file with LF or CR LF line ends"
)
UNSTORABLE = "{what} U+{code:04X}{column} cannot be stored or exported: {why}"
TOO_LONG = (
    "{what} of {length:,} characters is too long; at most {limit:,} can be stored ({start!r}…)"
)

_UTF8_BOM = "\ufeff"
_WIDE_ENCODINGS = {
    "utf-16": (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE),
    "utf-16-le": (codecs.BOM_UTF16_LE,),
    "utf-16-be": (codecs.BOM_UTF16_BE,),
    "utf-32": (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE),
    "utf-32-le": (codecs.BOM_UTF32_LE,),
    "utf-32-be": (codecs.BOM_UTF32_BE,),
}
# UTF-32 first: its little-endian BOM starts with UTF-16's.
_WIDE_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
# Python calls these text encodings, but they encode domain names or Python string literals
# (or nothing at all), never the sentences of a file.
_NOT_FILE_ENCODINGS = {"punycode", "idna", "unicode-escape", "raw-unicode-escape", "undefined"}
# The complement of XML 1.0's Char production: also what PostgreSQL (NUL) and the XML exports
# cannot take.
UNSTORABLE_CHARACTER = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_BARE_CR = re.compile("\r(?!\n)")
# UTF-16 of Latin text has a zero in every other byte; a few NULs in 8-bit text do not come
# near this share of one byte position.
_WIDE_ZERO_SHARE = 0.75


def encoding_problem(encoding: str) -> str | None:
    """Why ``encoding`` cannot decode a file, or None when it can."""
    try:
        info = codecs.lookup(encoding)
    except (LookupError, ValueError, TypeError):
        return UNKNOWN_ENCODING.format(encoding=encoding[:60])
    if not getattr(info, "_is_text_encoding", True) or info.name in _NOT_FILE_ENCODINGS:
        return NOT_TEXT_ENCODING.format(encoding=encoding[:60])
    return None


def check_size(file: InputFile, max_bytes: int | None) -> None:
    """Refuse a file larger than ``max_bytes`` (``None`` means no limit).

    Raises:
        CorpusFormatError: the file is too large.
    """
    if max_bytes is not None and len(file.data) > max_bytes:
        raise CorpusFormatError(file.name, TOO_LARGE.format(size=len(file.data), limit=max_bytes))


def decode(
    file: InputFile,
    encoding: str = DEFAULT_ENCODING,
    *,
    bad_encoding: str = BAD_ENCODING,
    other_encoding: str = GIVE_ENCODING,
) -> str:
    """Decode the bytes of ``file``; a leading byte-order mark is removed.

    Args:
        file: the file.
        encoding: the encoding chosen by the user (or the default).
        bad_encoding: the message for an undecodable byte, with ``{encoding}`` and ``{byte}``
            (the judgments formats have no encoding option to suggest).
        other_encoding: the advice for a UTF-16/32 file read as 8-bit text, with ``{guess}``.

    Raises:
        CorpusFormatError: an unknown or non-text encoding, a byte that is invalid in it (with
            its line), bytes that are plainly of another width than the encoding, or a character
            that cannot be stored (with its line and column).
    """
    problem = encoding_problem(encoding)
    if problem is not None:
        raise CorpusFormatError(file.name, problem)
    _check_width(file, codecs.lookup(encoding).name, encoding, other_encoding)
    try:
        text = file.data.decode(encoding)
    except UnicodeDecodeError as error:
        raise CorpusFormatError(
            file.name,
            bad_encoding.format(encoding=encoding, byte=error.object[error.start]),
            line=_line_of_byte(file.data, error.start, encoding),
        ) from None
    except UnicodeError as error:  # a codec may fail without naming the byte
        raise CorpusFormatError(
            file.name, UNDECODABLE.format(encoding=encoding, reason=error)
        ) from None
    # A BOM is decoded as U+FEFF by "utf-8" (and "utf-16" keeps none); it is never content.
    text = text.removeprefix(_UTF8_BOM)
    check_characters(file, text)
    return text


def _check_width(file: InputFile, codec: str, encoding: str, advice: str) -> None:
    """Refuse UTF-16/32 for a file of 8-bit text and an 8-bit encoding for UTF-16/32 bytes.

    Both decode without error into text no one wrote (CJK for UTF-8 read as UTF-16, a NUL
    after every letter the other way round). Text of letters, digits or line ends in UTF-16/32
    always has zero bytes (every line end does); an 8-bit file has none at all.
    """
    data = file.data
    if codec in _WIDE_ENCODINGS:
        if not data.startswith(_WIDE_ENCODINGS[codec]) and b"\x00" not in data:
            guess = "an 8-bit encoding such as latin-1 or cp1250"
            try:
                data.decode("utf-8")
                guess = "utf-8"
            except UnicodeDecodeError:
                pass
            raise CorpusFormatError(file.name, NOT_WIDE.format(encoding=encoding, guess=guess))
        return
    for bom, guess in _WIDE_BOMS:
        if data.startswith(bom):
            reason = f"it starts with the {guess} byte-order mark"
            _refuse_wide(file, guess, reason, encoding, advice)
    if len(data) >= 4 and any(
        half.count(0) >= _WIDE_ZERO_SHARE * len(half) for half in (data[0::2], data[1::2])
    ):
        _refuse_wide(file, "utf-16", "every other byte is zero", encoding, advice)


def _refuse_wide(file: InputFile, guess: str, reason: str, encoding: str, advice: str) -> None:
    message = LOOKS_WIDE.format(
        guess=guess, reason=reason, encoding=encoding, advice=advice.format(guess=guess)
    )
    raise CorpusFormatError(file.name, message)


def _line_of_byte(data: bytes, offset: int, encoding: str) -> int:
    """1-based line of the byte at ``offset``; everything before it decodes cleanly."""
    return data[:offset].decode(encoding, errors="replace").count("\n") + 1


def unstorable_problem(text: str, *, column: int | None = None) -> str | None:
    """Why ``text`` cannot be stored (its first character XML 1.0 does not allow), or None.

    ``column`` is added to the message when the caller knows where the text starts.
    """
    match = UNSTORABLE_CHARACTER.search(text)
    if match is None:
        return None
    code = ord(match.group())
    if 0xD800 <= code <= 0xDFFF:
        what, why = "the lone surrogate", "it is half of a UTF-16 pair, not a character"
    elif code > 0xFFFD:
        what, why = "the noncharacter", "it is not a character"
    else:
        what = "the control character"
        why = "remove it (tab, line feed and carriage return are the only ones allowed)"
    where = f" (column {column + match.start()})" if column is not None else ""
    return UNSTORABLE.format(what=what, code=code, column=where, why=why)


def check_characters(file: InputFile, text: str) -> None:
    """Refuse a character that cannot be stored, naming its line and column.

    Raises:
        CorpusFormatError: the first such character.
    """
    match = UNSTORABLE_CHARACTER.search(text)
    if match is None:
        return
    start = match.start()
    line_start = text.rfind("\n", 0, start) + 1
    problem = unstorable_problem(text[start:], column=start - line_start + 1)
    raise CorpusFormatError(file.name, problem, line=text.count("\n", 0, start) + 1)


def check_line_ends(file: InputFile, text: str) -> None:
    """Refuse a CR not followed by LF in a line-based file (classic Mac OS line ends).

    Such a file would be read as one line; converting silently could split a sentence that
    merely contains a CR, so the user decides.

    Raises:
        CorpusFormatError: naming the line of the first bare CR.
    """
    match = _BARE_CR.search(text)
    if match is not None:
        raise CorpusFormatError(file.name, BARE_CR, line=text.count("\n", 0, match.start()) + 1)


def split_lines(text: str) -> list[str]:
    """Split on ``\\n``, dropping one ``\\r`` before it and the empty piece after a final newline."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def is_blank(text: str) -> bool:
    """True for text that shows nothing: empty, whitespace (U+00A0, U+3000 …) or invisible
    format characters only (U+200B ZERO WIDTH SPACE, U+FEFF, U+00AD SOFT HYPHEN …)."""
    return all(char.isspace() or unicodedata.category(char) == "Cf" for char in text)


def read_text(
    file: InputFile, *, encoding: str = DEFAULT_ENCODING, max_bytes: int | None = None
) -> str:
    """Size-check, decode and refuse an empty (or blank) file.

    Raises:
        CorpusFormatError: too large, undecodable, unstorable or empty.
    """
    check_size(file, max_bytes)
    text = decode(file, encoding)
    if is_blank(text):
        raise CorpusFormatError(file.name, EMPTY_FILE)
    return text


def read_lines(
    file: InputFile,
    *,
    encoding: str = DEFAULT_ENCODING,
    max_bytes: int | None = None,
    allow_blank: bool = False,
) -> list[str]:
    """Read a one-item-per-line file; every line must hold text unless ``allow_blank``.

    Raises:
        CorpusFormatError: too large, undecodable, unstorable, empty, CR-only line ends, or a
            blank line (with its number).
    """
    text = read_text(file, encoding=encoding, max_bytes=max_bytes)
    check_line_ends(file, text)
    lines = split_lines(text)
    if not allow_blank:
        for number, line in enumerate(lines, start=1):
            if is_blank(line):
                raise CorpusFormatError(file.name, EMPTY_LINE, line=number)
    return lines


_KIND_NAMES = {
    "doc_id": "document id",
    "seg_id": "segment id",
    "system": "system name",
    "reference": "reference label",
    "language": "language code",
    "aspect": "score class",
    "judge": "judge",
}


@dataclass(frozen=True)
class FieldLimits:
    """The longest name or id of each kind the database stores (None: no limit).

    The parsers know where each value stands in its file, so they check it there; the import
    entry points fill the limits from the model fields (``max_length``), so that a value too
    long is refused with its line instead of failing in PostgreSQL or being stored whole by
    SQLite.
    """

    doc_id: int | None = None
    seg_id: int | None = None
    system: int | None = None
    reference: int | None = None
    language: int | None = None
    aspect: int | None = None
    judge: int | None = None

    def problem(self, kind: str, value: str) -> str | None:
        """Why ``value``, a name or id of ``kind`` (a field of this class), cannot be stored."""
        limit = getattr(self, kind)
        if limit is None or len(value) <= limit:
            return None
        return TOO_LONG.format(
            what=_KIND_NAMES[kind], length=len(value), limit=limit, start=value[:30]
        )

    def check(
        self, kind: str, value: str, file_name: str, line: int | None = None, element: str = ""
    ) -> None:
        """Raise :class:`CorpusFormatError` at ``file_name``, ``line`` if ``value`` is too long."""
        problem = self.problem(kind, value)
        if problem is not None:
            raise CorpusFormatError(file_name, problem, line=line, element=element)


NO_LIMITS = FieldLimits()
