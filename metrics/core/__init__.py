"""metrics.core: every automatic measure of evaltrans, as a pure library (never Django).

``METRICS`` maps the names users pick (command line, web forms, stored runs) to the
measure classes. ``get_metric(name)(**options)`` builds one.
"""

from __future__ import annotations

from .base import Measure, MeasureError, Option, Score, Signature

METRICS: dict[str, type[Measure]] = {}

# Edit-distance measures (issue 3).
from .cder import CDER  # noqa: E402
from .invwer import INVWER  # noqa: E402
from .ljwer import LJWER  # noqa: E402
from .per import MSDER, PER  # noqa: E402
from .ter import TER  # noqa: E402
from .wer import WER  # noqa: E402

METRICS.update(
    {
        "wer": WER,
        "per": PER,
        "msder": MSDER,
        "cder": CDER,
        "ljwer": LJWER,
        "invwer": INVWER,
        "ter": TER,
    }
)


# N-gram measures and translation complexity (issue 4).
from .bleu import BLEU  # noqa: E402
from .chrf import CHRF  # noqa: E402
from .complexity import ASW  # noqa: E402
from .mper import MPER, SkipBigramPER  # noqa: E402
from .nist import NIST  # noqa: E402
from .wnm import WNM  # noqa: E402

METRICS.update(
    {
        "bleu": BLEU,
        "nist": NIST,
        "chrf": CHRF,
        "mper": MPER,
        "skipper": SkipBigramPER,
        "wnm": WNM,
        "asw": ASW,
    }
)

def get_metric(name: str) -> type[Measure]:
    try:
        return METRICS[name]
    except KeyError:
        known = ", ".join(sorted(METRICS))
        raise MeasureError(f"unknown measure {name!r} (known: {known})") from None


__all__ = ["METRICS", "Measure", "MeasureError", "Option", "Score", "Signature", "get_metric"]
