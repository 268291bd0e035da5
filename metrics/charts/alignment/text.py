"""The tercom-style text of an alignment view (REF:/HYP:/EVAL: lines, wrapped in blocks) for
papers, and its one-line summary."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

from metrics.charts.alignment.drawing import _fmt

TEXT_WIDTH = 40
LINE_WIDTH = 46
"""Other lines of the text (headings, shifts, word lists) wrap here."""
"""Characters per line of the text rendering before it wraps into another block."""


EVAL_MARKS = {"match": "", "substitute": "S", "insert": "I", "delete": "D", "jump": "J"}
TEXT_LEGEND = (
    "S substitution",
    "I insertion: a reference word the candidate lacks",
    "D deletion: a candidate word without counterpart",
    "J long jump (||)",
)


def alignment_text(view: Mapping[str, Any], heading: str = "") -> str:
    """A tercom-style rendering (REF:/HYP:/EVAL: lines, wrapped in blocks) for papers."""
    lines = []
    for line in _text_lines(view, heading):
        if line.startswith(("REF:", "HYP:", "EVAL:")):
            lines.append(line)  # aligned columns: already cut into blocks
        else:
            lines.extend(textwrap.wrap(line, LINE_WIDTH, subsequent_indent="  ") or [""])
    return "\n".join(lines).rstrip() + "\n"


def _text_lines(view: Mapping[str, Any], heading: str) -> list[str]:
    lines: list[str] = []
    if heading:
        lines.append(heading)
    lines.append(summary_line(view))
    for number, shift in enumerate(view.get("shifts") or [], start=1):
        lines.append(f"SHIFT {number}: {_shift_phrase(shift)}")
    columns = _text_columns(view)
    if view["measure"] in ("per",):
        lines.append("(PER ignores word order: pairs listed in candidate order)")
    lines.append("")
    lines.extend(_wrapped(columns))
    lines.extend(_tail_lines(view))
    return lines


def summary_line(view: Mapping[str, Any]) -> str:
    """``distance 6 = 5 edits + 1 shift · reference length 10 · rate 60.00 %``."""
    distance = f"distance {_fmt(view['distance'])}"
    shifts = view.get("shift_cost") or 0
    penalty = view.get("penalty") or 0
    if shifts:
        noun = "shift" if shifts == 1 else "shifts"
        distance += f" = {_fmt(view['path_cost'] - shifts)} edits + {_fmt(shifts)} {noun}"
    elif penalty:
        distance += f" = {_fmt(view['path_cost'] - penalty)} path + {_fmt(penalty)} penalty"
    parts = [distance, f"reference length {view['ref_length']}"]
    if view.get("rate") is not None:
        parts.append(f"rate {view['rate']:.2f} %")
    return " · ".join(parts)


def _shift_phrase(shift: Mapping[str, Any]) -> str:
    words = " ".join(shift.get("words") or [])
    start, length, target = shift["start"], shift["length"], shift["target"]
    if target < start:
        moved = start - target
        where = "left"
    else:
        moved = target - (start + length)
        where = "right"
    return f"[{words}] {moved} word{'s' if moved != 1 else ''} {where} (position {start + 1} → {target + 1})"


def _text_columns(view: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(reference token, candidate token, mark) per step, in path order (PER and INVWER:
    candidate order, insertions last)."""
    columns: list[tuple[str, str, str]] = []
    if view["measure"] in ("per", "invwer"):
        pairs = sorted(
            view.get("matching", []),
            key=lambda p: (p["hyp_index"] is None, p["hyp_index"] or 0, p["ref_index"] or 0),
        )
        for pair in pairs:
            columns.append(_column(pair["kind"], pair.get("hyp_word"), pair.get("ref_word")))
        return columns
    for step in view.get("steps", []):
        if step["kind"] == "jump":
            columns.append(("||", "||", "J"))
            continue
        columns.append(_column(step["kind"], step.get("hyp_word"), step.get("ref_word")))
    return columns


def _column(kind: str, hyp: str | None, ref: str | None) -> tuple[str, str, str]:
    mark = EVAL_MARKS.get(kind, "?")
    hyp_text = hyp if hyp is not None else "*" * max(3, len(ref or ""))
    ref_text = ref if ref is not None else "*" * max(3, len(hyp or ""))
    return ref_text, hyp_text, mark


def _wrapped(columns: Sequence[tuple[str, str, str]]) -> list[str]:
    lines: list[str] = []
    block: list[tuple[str, str, str]] = []
    used = 0
    for column in columns:
        width = max(len(column[0]), len(column[1]), len(column[2])) + 1
        if block and used + width > TEXT_WIDTH:
            lines.extend(_block_lines(block))
            lines.append("")
            block, used = [], 0
        block.append(column)
        used += width
    if block:
        lines.extend(_block_lines(block))
    return lines


def _block_lines(block: Sequence[tuple[str, str, str]]) -> list[str]:
    widths = [max(len(part) for part in column) for column in block]
    rows = []
    for label, index in (("REF: ", 0), ("HYP: ", 1), ("EVAL:", 2)):
        cells = [column[index].ljust(width) for column, width in zip(block, widths, strict=True)]
        rows.append((label + " " + " ".join(cells)).rstrip())
    return rows


def _tail_lines(view: Mapping[str, Any]) -> list[str]:
    lines: list[str] = []
    coverage = view.get("coverage")
    if coverage is not None:
        words = view["x_words"]
        uncovered = [words[k] for k, count in enumerate(coverage) if count == 0]
        repeated = [f"{words[k]}×{count}" for k, count in enumerate(coverage) if count >= 2]
        side = view.get("coverage_side") or "candidate"
        lines.append("")
        lines.append(f"UNCOVERED {side.upper()} WORDS: {' '.join(uncovered) or '(none)'}")
        lines.append(f"COVERED TWICE OR MORE: {' '.join(repeated) or '(none)'}")
    tree = view.get("tree")
    if tree:
        inverted = [node for node in _inner(tree) if node["type"] == "inverted"]
        if inverted:
            lines.append("")
        for node in inverted:
            hyp_span, ref_span = node["hyp_span"], node["ref_span"]
            hyp_words = " ".join(view["hyp"][hyp_span[0] : hyp_span[1]])
            ref_words = " ".join(view["ref"][ref_span[0] : ref_span[1]])
            lines.append(f"INVERTED: <{hyp_words}> ~ <{ref_words}>")
    for note in view.get("notes", []):
        lines.append(f"NOTE: {note}")
    marks = {mark for _, _, mark in _text_columns(view)}
    used = [line for line in TEXT_LEGEND if line[0] in marks]
    if used:
        lines.append("")
        lines.extend(used)
    return lines


def _inner(node: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    if not node.get("children"):
        return []
    return [node] + [inner for child in node["children"] for inner in _inner(child)]
