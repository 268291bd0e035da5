"""Reference-length rules: which L*_k normalises a segment (measures spec §4, Tables A.3, A.4).

Two families, never to be mixed up:

* distance measures (WER, PER, CDER, ...) pick "nearest" references by *distance*, and
  ``lowestError`` also changes the numerator (Eq. 5.7): :func:`distance_reference_length`;
* BLEU and NIST pick by *length difference* (shortest on ties): :func:`bleu_reference_length`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

DISTANCE_RULES = (
    "average",
    "minimum",
    "maximum",
    "averageNearest",
    "minimumNearest",
    "maximumNearest",
    "lowestError",
)
"""Table A.3: rules for distance-based measures."""

BLEU_RULES = ("average", "minimum", "minimumNearest")
"""Table A.4: rules for BLEU and NIST."""

TOLERANCE = 1e-9
"""Absolute tolerance for equal distances and ratios (word-dependent costs are fractional)."""


def _relative_error(distance: float, length: float) -> float:
    if length == 0:
        return 0.0 if distance <= TOLERANCE else math.inf
    return distance / length


def distance_reference_length(
    distances: Sequence[float], ref_lengths: Sequence[float], rule: str
) -> tuple[float, float]:
    """Numerator d_k and reference length L*_k of one segment (spec §4.1, Table A.3).

    Args:
        distances: D_r, the distance of the candidate to each reference r.
        ref_lengths: L_r, the token count of each reference (same order).
        rule: one of :data:`DISTANCE_RULES`.

    Returns:
        ``(d_k, L*_k)``. Every rule but ``lowestError`` uses d_k = min_r D_r; ``lowestError``
        uses the distance to r* = argmin_r D_r / L_r (first reference on ties), which can be
        larger than the minimum.

    Raises:
        ValueError: for an unknown rule or no references.

    Example:
        >>> distance_reference_length([1, 3, 1], [6, 7, 7], "averageNearest")
        (1, 6.5)
    """
    _, distance, length = distance_reference_choice(distances, ref_lengths, rule)
    return distance, length


def distance_reference_choice(
    distances: Sequence[float], ref_lengths: Sequence[float], rule: str
) -> tuple[int, float, float]:
    """:func:`distance_reference_length` with the reference whose distance is d_k.

    Returns:
        ``(r, d_k, L*_k)``: r is r* under ``lowestError``, else the first reference of the
        least distance (d_k = D_r in both cases); alignments are drawn against it.

    Example:
        >>> distance_reference_choice([3, 1, 1], [6, 2, 7], "lowestError")
        (2, 1, 7)
    """
    if not distances or len(distances) != len(ref_lengths):
        raise ValueError("need one distance per reference and at least one reference")
    if rule == "lowestError":
        ratios = [_relative_error(d, n) for d, n in zip(distances, ref_lengths, strict=True)]
        best_ratio = min(ratios)
        best = next(r for r, ratio in enumerate(ratios) if ratio <= best_ratio + TOLERANCE)
        return best, distances[best], ref_lengths[best]
    nearest_distance = min(distances)
    nearest = list(distances).index(nearest_distance)
    if rule in ("average", "minimum", "maximum"):
        lengths = list(ref_lengths)
    elif rule in ("averageNearest", "minimumNearest", "maximumNearest"):
        lengths = [
            n
            for d, n in zip(distances, ref_lengths, strict=True)
            if d <= nearest_distance + TOLERANCE
        ]
    else:
        raise ValueError(f"unknown reference-length rule {rule!r}")
    if rule.startswith("average"):
        return nearest, nearest_distance, sum(lengths) / len(lengths)
    if rule.startswith("minimum"):
        return nearest, nearest_distance, min(lengths)
    return nearest, nearest_distance, max(lengths)


def bleu_reference_length(hyp_len: int, ref_lens: Sequence[int], rule: str) -> float:
    """Reference length L*_k for BLEU and NIST (spec §4.2, Table A.4).

    Args:
        hyp_len: I_k, the candidate's token count.
        ref_lens: the token counts of its references.
        rule: ``average``, ``minimum`` or ``minimumNearest`` (the reference length closest to
            the candidate length, the shortest on ties; sacreBLEU's "closest").

    Returns:
        L*_k (fractional for ``average``).

    Raises:
        ValueError: for an unknown rule or no references.

    Example:
        >>> bleu_reference_length(3, [2, 4], "minimumNearest")
        2
    """
    if not ref_lens:
        raise ValueError("need at least one reference length")
    if rule == "average":
        return sum(ref_lens) / len(ref_lens)
    if rule == "minimum":
        return min(ref_lens)
    if rule == "minimumNearest":
        return min(ref_lens, key=lambda length: (abs(hyp_len - length), length))
    raise ValueError(f"unknown BLEU reference-length rule {rule!r}")


def bleu_reference_choice(
    hyp_len: int, ref_lens: Sequence[int], rule: str
) -> tuple[int | None, float]:
    """:func:`bleu_reference_length` with the reference of that length.

    Returns:
        ``(r, L*_k)``: r is the first reference of length L*_k under ``minimum`` and
        ``minimumNearest``, None under ``average`` (no single reference).

    Example:
        >>> bleu_reference_choice(3, [4, 2, 2], "minimumNearest")
        (1, 2)
    """
    length = bleu_reference_length(hyp_len, ref_lens, rule)
    if rule == "average":
        return None, length
    return list(ref_lens).index(int(length)), length
