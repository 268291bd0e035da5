"""CSV cells that spreadsheets read as text, never as formulas (OWASP "CSV injection")."""

from __future__ import annotations

# A cell starting with one of these runs as a formula in Excel, LibreOffice or Google Sheets.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value: object) -> object:
    """A text cell that a spreadsheet would run as a formula, prefixed with ``'`` so it shows as
    text; other values unchanged. Only CSV downloads use this: JSON and XML keep MT output and
    names exactly as written."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value
