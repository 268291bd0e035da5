"""Reads for the linear-combination page: the correlation-optimal weights of several stored
measure settings against one human column, the two-measure r(w) curve (thesis Fig. 8.1), the
cross-validated r, and whether the combination beats the best single measure significantly."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from judging.humanscores.selectors import HumanSource
from metrics.core.correlation import (
    CorrelationError,
    combination_curve,
    compare,
    correlate,
    cross_validated_predictions,
    optimal_weights,
)
from metrics.selectors.correlation import (
    MetaEvaluationError,
    correlation_inputs,
    human_side,
    level_arrays,
    measure_results,
)

MIN_MEASURES = 2
MAX_MEASURES = 8
PICK_MEASURES = "pick between {low} and {high} measure settings to combine"


def combination(
    *,
    source: HumanSource,
    signatures: Sequence[str],
    aspect: str,
    view: str = "raw",
    level: str = "segment",
    aggregation: str = "corpus",
) -> dict[str, Any]:
    """The combination page's numbers (pooled Pearson; measures oriented higher = better).

    Cross-validation leaves one system out at a time (the weights never see the system they
    score), pooling the held-out predictions; the combination's cross-validated r is compared
    with the best single measure's r by Williams' test on the same cells.

    Raises:
        MetaEvaluationError: fewer than 2 or more than 8 settings, an unknown signature,
            collinear measures, too few systems to cross-validate.
    """
    signatures = list(dict.fromkeys(signatures))
    if not MIN_MEASURES <= len(signatures) <= MAX_MEASURES:
        raise MetaEvaluationError(PICK_MEASURES.format(low=MIN_MEASURES, high=MAX_MEASURES))
    if source.test_set is None:
        raise MetaEvaluationError(f"{source.name!r} is not attached to a test set")
    stored = {r.signature: r for r in measure_results(test_set=source.test_set)}
    missing = [signature for signature in signatures if signature not in stored]
    if missing:
        raise MetaEvaluationError(f"no stored result with signature {missing[0]!r}")
    results = [stored[signature] for signature in signatures]
    human = human_side(source=source, aspect=aspect, normalized=view == "normalized")
    inputs = correlation_inputs(
        test_set=source.test_set, human=human, results=results, aggregation=aggregation
    )
    human_matrix, measure_matrix = level_arrays(inputs, level)
    y = human_matrix.ravel()
    x = measure_matrix.reshape(len(results), -1)
    systems = np.repeat(np.arange(len(inputs.systems)), human_matrix.shape[1])
    keep = np.isfinite(y) & np.all(np.isfinite(x), axis=0)
    x, y, systems = x[:, keep], y[keep], systems[keep]
    labels = [result.label for result in results]
    try:
        weights, r_max = optimal_weights(x, y, names=labels)
        singles = correlate(y[None, :], x[:, None, :], coefficient="pearson").values
        predicted = cross_validated_predictions(x, y, systems)
        best = int(np.nanargmax(singles))
        pair = np.stack([predicted, x[best]])[:, None, :]
        pvalues = compare(y[None, :], pair, coefficient="pearson", method="williams")
        cv_r = float(
            correlate(y[None, :], predicted[None, None, :], coefficient="pearson").values[0]
        )
        curve = None
        if len(results) == 2:
            w, r = combination_curve(x[0], x[1], y)
            curve = {"w": [float(v) for v in w], "r": [float(v) for v in r]}
    except CorrelationError as error:
        raise MetaEvaluationError(str(error)) from None
    return {
        "labels": labels,
        "signatures": list(signatures),
        "negated": [result.negated for result in results],
        "weights": [float(v) for v in weights],
        "r_max": float(r_max),
        "singles": [float(v) for v in singles],
        "best": best,
        "best_label": labels[best],
        "cv_r": cv_r,
        "gain": cv_r - float(singles[best]),
        "p_value": float(pvalues[0, 1]),
        "cells": int(y.size),
        "systems": len(inputs.systems),
        "level": level,
        "curve": curve,
    }
