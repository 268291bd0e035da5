"""EvalTrans' batch options (measures spec §15): ``evaluate --option`` pairs → measures,
option values and run settings.

No database and no Django: values stay strings; each measure converts and checks them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from metrics.core import METRICS, MeasureError
from metrics.core.base import parse_bool
from metrics.measure_choices import RunError

BAD_OPTION = "--option {pair!r}: expected MEASURE.KEY=VALUE, KEY=VALUE or an EvalTrans option"
OPTION_MATCHES_NOTHING = "--option {pair!r}: no chosen measure has an option {key!r}{owners}"
MEASURE_NOT_CHOSEN = "--option {pair!r}: measure {name!r}{alias} is not chosen"
FAMILY_MATCHES_NOTHING = (
    "--option {pair!r}: no chosen measure of EvalTrans' {prefix}- options ({family}) has an "
    "option {key!r}"
)
BLEU_ONLY = (
    "--option {pair!r}: in EvalTrans max-ngram is BLEU's (spec §15) and bleu is not chosen; "
    "use nist-max-ngram, nper-max-ngram or MEASURE.max-ngram"
)

# Prefixed EvalTrans options that set one key on a group of our measures (spec §15, Table
# A.1): ``wer-…`` is "WER, PER, etc." (CDER included: Fig. A.2 gives it a reference-length
# rule); ``nper-…`` is m-PER, whose boundaries and length rule skip-bigram PER shares.
EVALTRANS_FAMILIES: dict[str, tuple[str, ...]] = {
    "wer": ("wer", "per", "msder", "cder", "ljwer", "invwer"),
    "nper": ("mper", "skipper"),
}
# Report tags of the spec that name one of our measures, for messages.
EVALTRANS_ALIASES = {"nper": "mper"}
# Bare EvalTrans options that belong to one measure although others have a key of that name.
EVALTRANS_OWNED_KEYS = {"max-ngram": "bleu"}
# EvalTrans flags (Table A.2) that switch a measure option on.
EVALTRANS_MEASURE_FLAGS = {"nper-choose-references-separately"}

# Table A.1/A.2 rows that are not measure options: what each becomes in ``evaluate``.
EVALTRANS_RUN_SETTINGS = {
    "output-file": "report",
    "comment": "comment",
    "sentences-in-detail": "sentences_in_detail",
    "include-sentences": "include_sentences",
}
EVALTRANS_MEASURE_SWITCHES = {"allow-transpositions": "invwer", "allow-long-jumps": "ljwer"}
EVALTRANS_ACCEPTED_ENCODINGS = {"utf-8", "utf8"}
# Rows evaltrans does not support, with why and what to use instead (one line each).
EVALTRANS_REFUSED = {
    "leaving-one-out": (
        "is not supported: every measure scores against all stored references; to score a "
        "reference against the others, import it as a system of a test set without it"
    ),
    "all-ngrams": (
        "is not supported: the report's <n-gram n> blocks give every order's counts and "
        "precision; for the score up to order M run bleu or nist with max-ngram=M"
    ),
    "extrapolate": (
        "is not supported: runs compute automatic measures only; human scores come from "
        "judging campaigns (docs/human-scores.md)"
    ),
    "encoding": (
        "must be utf-8: stored test sets are Unicode and the report is UTF-8; choose the "
        "input encoding when importing (import_corpus --encoding)"
    ),
}


@dataclass
class BatchOptions:
    """What ``evaluate --option`` pairs ask for: measures, their options and run settings."""

    measures: list[str]
    options: dict[str, dict[str, str]]
    report: str = ""
    comment: str = ""
    sentences_in_detail: bool = False
    include_sentences: bool = False


def _measure_has(name: str, key: str) -> bool:
    measure = METRICS.get(name)
    return measure is not None and key in measure.options


def _option_owners(key: str) -> str:
    owners = [name for name in METRICS if _measure_has(name, key)]
    return f" (measures with it: {', '.join(owners)})" if owners else ""


def _split_pair(pair: str, flags: Iterable[str]) -> tuple[str, str]:
    """``(key, value)`` of one pair; a bare flag name means ``true``."""
    target, separator, value = pair.partition("=")
    target = target.strip().replace("_", "-")
    if not separator and target in flags:
        return target, "true"
    if not separator or not target:
        raise RunError(BAD_OPTION.format(pair=pair))
    return target, value


def _flag_value(pair: str, value: str) -> bool:
    try:
        return parse_bool(value)
    except MeasureError as error:
        raise RunError(f"--option {pair!r}: {error}") from None


def batch_options_parse(*, pairs: Sequence[str], measures: Sequence[str]) -> BatchOptions:
    """Measures, options and run settings from ``--option`` pairs, EvalTrans' rows included.

    Every row of spec §15 (Tables A.1, A.2) is either mapped (``output-file`` → the report,
    ``allow-long-jumps`` → LJWER, ``nper-max-ngram`` → m-PER, ...) or refused with a message
    that says why and what to use instead (``EVALTRANS_REFUSED``). Everything else goes to
    :func:`measure_options_parse`.
    """
    flags = {"sentences-in-detail", "include-sentences", "xml-mode", *EVALTRANS_MEASURE_SWITCHES}
    flags.update({*EVALTRANS_REFUSED, *EVALTRANS_MEASURE_FLAGS})
    names = list(dict.fromkeys(measures))
    run_settings: dict[str, Any] = {}
    measure_pairs: list[str] = []
    for pair in pairs:
        key, value = _split_pair(pair, flags)
        if key in EVALTRANS_REFUSED:
            if key == "encoding" and value.strip().lower() in EVALTRANS_ACCEPTED_ENCODINGS:
                continue
            raise RunError(f"--option {pair!r}: EvalTrans' {key} {EVALTRANS_REFUSED[key]}")
        if key == "xml-mode":  # the report is always XML
            _flag_value(pair, value)
        elif key in EVALTRANS_MEASURE_SWITCHES:
            if _flag_value(pair, value) and EVALTRANS_MEASURE_SWITCHES[key] not in names:
                names.append(EVALTRANS_MEASURE_SWITCHES[key])
        elif key in ("sentences-in-detail", "include-sentences"):
            run_settings[EVALTRANS_RUN_SETTINGS[key]] = _flag_value(pair, value)
        elif key in EVALTRANS_RUN_SETTINGS:
            run_settings[EVALTRANS_RUN_SETTINGS[key]] = value
        else:
            measure_pairs.append(pair)
    options = measure_options_parse(pairs=measure_pairs, measures=names)
    return BatchOptions(measures=names, options=options, **run_settings)


def measure_options_parse(
    *, pairs: Sequence[str], measures: Sequence[str]
) -> dict[str, dict[str, str]]:
    """Option values per measure from ``--option`` pairs; these spellings are accepted:

    * ``MEASURE.KEY=VALUE`` (``cder.pad-rule=both``): one measure;
    * ``MEASURE-KEY=VALUE``, the EvalTrans batch spelling (``cder-pad-rule=both``,
      ``bleu-ref-length-rule=average``); ``wer-KEY`` and ``nper-KEY`` set KEY on every chosen
      measure of their group (``EVALTRANS_FAMILIES``). ``nper-max-ngram=M`` is EvalTrans'
      (1..M)-PER, so it also sets m-PER's min-ngram to 1 unless ``mper.min-ngram`` is given;
    * ``KEY=VALUE`` (``tokenize=13a``, ``substitution-cost-rule=prefix``): every chosen
      measure that has the option KEY, except ``max-ngram``, which is BLEU's as in EvalTrans;
    * the flag ``nper-choose-references-separately`` (bare or ``=true``).

    Values stay strings; each measure converts and checks them. Later pairs win.
    """
    result: dict[str, dict[str, str]] = {name: {} for name in measures}
    implied: dict[str, dict[str, str]] = {name: {} for name in measures}

    def chosen_or_refuse(pair: str, name: str) -> None:
        if name not in result:
            alias = next(
                (f" (EvalTrans {a})" for a, n in EVALTRANS_ALIASES.items() if n == name), ""
            )
            raise RunError(MEASURE_NOT_CHOSEN.format(pair=pair, name=name, alias=alias))

    for pair in pairs:
        target, value = _split_pair(pair, EVALTRANS_MEASURE_FLAGS)
        if "." in target:
            name, _, key = target.partition(".")
            chosen_or_refuse(pair, name)
            result[name][key] = value
            continue
        prefix, dash, key = target.partition("-")
        if dash and prefix in EVALTRANS_FAMILIES:
            family = EVALTRANS_FAMILIES[prefix]
            matched = [name for name in result if name in family and _measure_has(name, key)]
            if not matched:
                alias = EVALTRANS_ALIASES.get(prefix)
                if alias and _measure_has(alias, key):
                    chosen_or_refuse(pair, alias)
                raise RunError(
                    FAMILY_MATCHES_NOTHING.format(
                        pair=pair, prefix=prefix, family=", ".join(family), key=key
                    )
                )
            for name in matched:
                result[name][key] = value
            if prefix == "nper" and key == "max-ngram" and "mper" in implied:
                implied["mper"]["min-ngram"] = "1"
            continue
        if dash and prefix in METRICS and _measure_has(prefix, key):
            chosen_or_refuse(pair, prefix)
            result[prefix][key] = value
            continue
        if target in EVALTRANS_OWNED_KEYS:
            owner = EVALTRANS_OWNED_KEYS[target]
            if owner not in result:
                raise RunError(BLEU_ONLY.format(pair=pair))
            result[owner][target] = value
            continue
        matched = [name for name in result if _measure_has(name, target)]
        if not matched:
            raise RunError(
                OPTION_MATCHES_NOTHING.format(pair=pair, key=target, owners=_option_owners(target))
            )
        for name in matched:
            result[name][target] = value
    return {name: {**implied[name], **values} for name, values in result.items()}
