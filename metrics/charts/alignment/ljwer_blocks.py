"""LJWER's blocks on the DP grid: the nodes each block's edges span, shaded."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from metrics.charts.alignment.drawing import BLOCK_COLOR


def _is_block(block: Mapping[str, Any]) -> bool:
    return all(key in block for key in ("hyp_start", "hyp_end", "ref_start", "ref_end"))


def _block_shape(block: Mapping[str, Any]) -> dict[str, Any]:
    """An LJWER block: the nodes its edges span, shaded."""
    return {
        "type": "rect",
        "xref": "x",
        "yref": "y",
        "x0": block["hyp_start"],
        "x1": block["hyp_end"],
        "y0": block["ref_start"],
        "y1": block["ref_end"],
        "line": {"color": BLOCK_COLOR, "width": 1, "dash": "dot"},
        "fillcolor": "rgba(106, 27, 154, 0.07)",
        "layer": "below",
    }
