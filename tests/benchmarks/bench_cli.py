"""The command line as users run it: whole processes, ours against sacreBLEU's and jiwer's.

``python -m metrics.core score`` against the ``sacrebleu`` command (and ``jiwer`` for WER) on
the same files, each a fresh process from start to exit, best of ``REPEAT`` runs, with the
peak memory of the last run (max RSS, from ``wait4``). Files (written to a temporary folder):

* one WMT17 en-de system, 3,004 lines, against its reference (the everyday case);
* the 16 systems concatenated, 48,064 lines, against the reference repeated 16 times (the
  shape users hand sacreBLEU: one big file pair);
* one line, for start-up: the whole cost of a process that scores next to nothing.

Targets are issue 16's: BLEU and chrF ≥ 2× sacreBLEU on 3,004 lines and ≥ 3× on 48,064, TER
≥ 10×, WER ≥ jiwer, start-up ≤ 0.5 s, peak memory ≤ 20× the input plus the interpreter.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.benchmarks.bench_ngram import _load
from tests.benchmarks.common import BenchRow

REPEAT = 3
BIN = Path(sys.executable).parent


def _process(command: list[str]) -> tuple[float, float, str]:
    """Wall seconds, peak RSS in MB and stdout of one process."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = child.stdout.read().decode() if child.stdout else ""
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - start
    if child.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited with {child.returncode}")
    return seconds, usage.ru_maxrss / 1024, out


def _best(command: list[str]) -> tuple[float, float, str]:
    runs = [_process(command) for _ in range(REPEAT)]
    return min(run[0] for run in runs), runs[-1][1], runs[-1][2]


def _ours(measure: str, ref: Path, hyp: Path) -> list[str]:
    command = f"-m metrics.core score --measure {measure} --ref {ref} --hyp {hyp}"
    return [sys.executable, *command.split()]


def _theirs(measure: str, ref: Path, hyp: Path) -> list[str]:
    if measure == "wer":
        return [str(BIN / "jiwer"), "-r", str(ref), "-h", str(hyp)]
    return [str(BIN / "sacrebleu"), str(ref), "-i", str(hyp), "-m", measure, "-b"]


def _files(folder: Path) -> dict[str, tuple[Path, Path]] | None:
    loaded = _load()
    if loaded is None:
        return None
    refs, systems = loaded
    reference = [segment[0] for segment in refs]
    pairs = {
        "3,004 lines": (reference, systems[0]),
        "48,064 lines": (reference * len(systems), [line for s in systems for line in s]),
        "1 line": (reference[:1], systems[0][:1]),
    }
    files = {}
    for label, (ref_lines, hyp_lines) in pairs.items():
        stem = label.split()[0].replace(",", "")
        ref, hyp = folder / f"ref-{stem}.txt", folder / f"hyp-{stem}.txt"
        ref.write_text("\n".join(ref_lines) + "\n", encoding="utf-8")
        hyp.write_text("\n".join(hyp_lines) + "\n", encoding="utf-8")
        files[label] = (ref, hyp)
    return files


PLAN = [
    ("1 line", "bleu", "<= 0.5 s start-up"),
    ("3,004 lines", "bleu", ">= 2x"),
    ("3,004 lines", "chrf", ">= 2x"),
    ("3,004 lines", "ter", ">= 10x"),
    ("3,004 lines", "wer", ">= 1x"),
    ("48,064 lines", "bleu", ">= 3x"),
    ("48,064 lines", "chrf", ">= 3x"),
]


def _row(label: str, measure: str, target: str, ref: Path, hyp: Path) -> BenchRow:
    ours_s, ours_mb, _ = _best(_ours(measure, ref, hyp))
    input_mb = (ref.stat().st_size + hyp.stat().st_size) / 2**20
    note = f"peak {ours_mb:.0f} MB for {input_mb:.1f} MB of text"
    if label == "1 line":
        met = ours_s <= 0.5
        return BenchRow(
            f"score {measure}, {label} (start-up)",
            ours_s,
            target=target,
            note=note + ("" if met else "; TARGET MISSED"),
        )
    tool = "jiwer" if measure == "wer" else "sacrebleu"
    if shutil.which(str(BIN / tool)) is None:
        return BenchRow(f"score {measure}, {label}", ours_s, target=target, note=f"{tool} absent")
    theirs_s, theirs_mb, _ = _best(_theirs(measure, ref, hyp))
    ratio = float(target.strip(">= x").split()[0])
    met = theirs_s / ours_s >= ratio
    return BenchRow(
        f"score {measure}, {label} (whole process)",
        ours_s,
        f"{tool} command line",
        theirs_s,
        target,
        note + f" (theirs {theirs_mb:.0f} MB)" + ("" if met else "; TARGET MISSED"),
    )


def run() -> list[BenchRow]:
    with tempfile.TemporaryDirectory() as name:
        files = _files(Path(name))
        if files is None:
            print("bench_cli: shared WMT17 data absent (set EVALTRANS_SHARED_DATA); skipped")
            return []
        return [_row(label, measure, target, *files[label]) for label, measure, target in PLAN]
