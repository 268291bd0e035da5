"""Reading helpers shared by every parser: size limit, decoding, line splitting.

All failures raise :class:`CorpusFormatError` naming the file (and the line where there is one),
so a user can fix the file without guessing. Lines are split on ``"\\n"`` only, with one
trailing ``"\\r"`` removed (Windows line ends); other Unicode line separators such as U+2028
or U+0085 are ordinary characters inside a sentence, because ``str.splitlines()`` would cut
sentences in two where other tools (sacrebleu, mteval) do not.
"""

from __future__ import annotations

import codecs

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
EMPTY_LINE = "empty line, but a sentence is required on every line"

_UTF8_BOM = "\ufeff"


def check_size(file: InputFile, max_bytes: int | None) -> None:
    """Refuse a file larger than ``max_bytes`` (``None`` means no limit).

    Raises:
        CorpusFormatError: the file is too large.
    """
    if max_bytes is not None and len(file.data) > max_bytes:
        raise CorpusFormatError(file.name, TOO_LARGE.format(size=len(file.data), limit=max_bytes))


def decode(file: InputFile, encoding: str = DEFAULT_ENCODING) -> str:
    """Decode the bytes of ``file``; a leading byte-order mark is removed.

    Raises:
        CorpusFormatError: unknown encoding, or a byte that is invalid in it (with its line).
    """
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise CorpusFormatError(file.name, UNKNOWN_ENCODING.format(encoding=encoding)) from None
    try:
        text = file.data.decode(encoding)
    except UnicodeDecodeError as error:
        raise CorpusFormatError(
            file.name,
            BAD_ENCODING.format(encoding=encoding, byte=error.object[error.start]),
            line=_line_of_byte(file.data, error.start, encoding),
        ) from None
    # A BOM is decoded as U+FEFF by "utf-8" (and "utf-16" keeps none); it is never content.
    return text.removeprefix(_UTF8_BOM)


def _line_of_byte(data: bytes, offset: int, encoding: str) -> int:
    """1-based line of the byte at ``offset``; everything before it decodes cleanly."""
    return data[:offset].decode(encoding, errors="replace").count("\n") + 1


def split_lines(text: str) -> list[str]:
    """Split on ``\\n``, dropping one ``\\r`` before it and the empty piece after a final newline."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def is_blank(text: str) -> bool:
    """True for the empty string or whitespace only."""
    return not text.strip()


def read_text(
    file: InputFile, *, encoding: str = DEFAULT_ENCODING, max_bytes: int | None = None
) -> str:
    """Size-check, decode and refuse an empty (or whitespace-only) file.

    Raises:
        CorpusFormatError: too large, undecodable or empty.
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
        CorpusFormatError: too large, undecodable, empty, or an empty line (with its number).
    """
    lines = split_lines(read_text(file, encoding=encoding, max_bytes=max_bytes))
    if not allow_blank:
        for number, line in enumerate(lines, start=1):
            if is_blank(line):
                raise CorpusFormatError(file.name, EMPTY_LINE, line=number)
    return lines
