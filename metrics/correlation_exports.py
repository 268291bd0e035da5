"""Downloads of the correlation dashboards: the matrix as CSV and as a LaTeX table (for papers),
the scatter numbers as CSV. The JSON downloads are the selectors' ``as_dict`` forms."""

from __future__ import annotations

import csv
import io
from typing import Any

from evaltrans.spreadsheets import spreadsheet_safe
from metrics.core.correlation import format_value
from metrics.selectors.correlation import CorrelationMatrix

LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_escape(text: str) -> str:
    return "".join(LATEX_SPECIALS.get(char, char) for char in text)


def correlation_csv(matrix: CorrelationMatrix) -> str:
    """One line per (measure setting, human column): value, n, interval, best, cluster."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        [
            "measure",
            "signature",
            "negated",
            "aspect",
            "view",
            "level",
            "grouping",
            "coefficient",
            "value",
            "n",
            "ci_low",
            "ci_high",
            "best",
            "cluster",
        ]
    )
    for row, cells in zip(matrix.rows, matrix.cells, strict=True):
        for column, cell in zip(matrix.columns, cells, strict=True):
            if cell is None:
                continue
            writer.writerow(
                [
                    spreadsheet_safe(row.measure),
                    spreadsheet_safe(row.signature),
                    row.negated,
                    spreadsheet_safe(column.aspect),
                    column.view,
                    column.level,
                    column.grouping,
                    matrix.coefficient,
                    "" if cell.value is None else repr(cell.value),
                    cell.n,
                    repr(cell.ci[0]) if cell.ci else "",
                    repr(cell.ci[1]) if cell.ci else "",
                    cell.best,
                    "" if cell.cluster is None else cell.cluster,
                ]
            )
    return out.getvalue()


def correlation_latex(matrix: CorrelationMatrix) -> str:
    """A booktabs table: rows = measure settings, columns = human columns, best per column in
    bold, as in the thesis' tables (error measures negated: positive = agreement)."""
    columns = matrix.columns
    lines = [
        "% evaltrans correlation matrix: " + latex_escape(matrix.source_name),
        "% coefficient " + matrix.coefficient + ", measures aggregated by " + matrix.aggregation,
        r"\begin{tabular}{l" + "r" * len(columns) + "}",
        r"\toprule",
        "measure & "
        + " & ".join(
            r"\shortstack{"
            + latex_escape(f"{c.aspect} {c.view}")
            + r"\\"
            + latex_escape("sys" if c.level == "system" else f"seg {c.grouping}")
            + "}"
            for c in columns
        )
        + r" \\",
        r"\midrule",
    ]
    for row, cells in zip(matrix.rows, matrix.cells, strict=True):
        values = []
        for cell in cells:
            if cell is None or cell.value is None:
                values.append("--")
            elif cell.best:
                values.append(r"\textbf{" + format_value(cell.value) + "}")
            else:
                values.append(format_value(cell.value))
        lines.append(latex_escape(row.label) + " & " + " & ".join(values) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    return "\n".join(lines)


def scatter_csv(numbers: dict[str, Any]) -> str:
    """The points of a scatter page, one line each."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    segment = numbers["level"] == "segment"
    writer.writerow(["system", *(["segment"] if segment else []), "measure", "human"])
    for point in numbers["points"]:
        writer.writerow(
            [
                spreadsheet_safe(point["system"]),
                *([point["segment"]] if segment else []),
                repr(point["measure"]),
                repr(point["human"]),
            ]
        )
    return out.getvalue()
