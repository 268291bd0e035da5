"""The one error class of the correlation package."""

from __future__ import annotations


class CorrelationError(ValueError):
    """Bad input to a meta-evaluation statistic: shapes, names, levels, or too little data.

    A ``ValueError``, so callers that validate user input with ``except ValueError`` see it.
    """
