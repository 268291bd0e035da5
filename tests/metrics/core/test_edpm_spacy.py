"""EDPM with the real spaCy pipeline: the beam API on the pinned versions, fragments of real
parses, the parse cache, stable sentence scores, and the demo MQM TED en-de set (skips with a
reason where the model or the shared data is absent)."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from metrics.core import METRICS
from metrics.core.edpm import parsing
from metrics.core.edpm.cache import ParseCache
from metrics.core.edpm.fragments import fragments
from tests.conftest import PROJECT_DIR, shared_path

MODEL, VERSION = parsing.DEFAULT_MODEL, parsing.DEFAULT_MODEL_VERSION
REASON = parsing.unavailable_reason(MODEL, VERSION)
pytestmark = pytest.mark.skipif(REASON is not None, reason=str(REASON))

SENTENCES = [
    "The cat stumbled.",
    "I saw the man with the telescope in the park.",
    "And this is what I really want to talk about today.",
    "We need to think about how we can make the world better for our children.",
    "Yes.",
]


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALTRANS_PARSE_CACHE", str(tmp_path))
    return tmp_path


def _greedy_trees(texts):
    nlp = parsing.load_pipeline(MODEL, VERSION)
    return [p.parses[0] for p in parsing._greedy(nlp, texts)]


def test_a_beam_of_one_finds_the_greedy_tree():
    """The spike as a test: beam_parse reads the docs' tok2vec output (a listener reading
    nothing would parse differently), and decoded beam arcs equal spaCy's own parse."""
    nlp = parsing.load_pipeline(MODEL, VERSION)
    beam = [p.parses for p in parsing._beam(nlp, SENTENCES, width=1)]
    greedy = _greedy_trees(SENTENCES)
    for parses, tree in zip(beam, greedy, strict=True):
        assert len(parses) == 1
        assert (parses[0].heads, parses[0].labels) == (tree.heads, tree.labels)


def test_a_beam_of_fifty_gives_distinct_trees_with_normalised_probabilities(cache_dir):
    parsed = parsing.parse_many(SENTENCES, MODEL, VERSION, beam=True, cache=ParseCache(cache_dir))
    for sentence in parsed.values():
        trees = {(p.heads, p.labels) for p in sentence.parses}
        assert len(trees) == len(sentence.parses) <= parsing.BEAM_WIDTH
        assert sum(p.prob for p in sentence.parses) == pytest.approx(1.0)
        probs = [p.prob for p in sentence.parses]
        assert probs == sorted(probs, reverse=True)
        assert all("||" not in label for p in sentence.parses for label in p.labels)
    assert len(parsed["I saw the man with the telescope in the park."].parses) > 1


def test_fragments_of_a_real_parse():
    tree = _greedy_trees(["The cat stumbled."])[0]
    bag = fragments(["The", "cat", "stumbled", "."], tree.heads, tree.labels, ["dl", "lh"])
    assert bag[("dl", "The", "det")] == 1 and bag[("lh", "det", "cat")] == 1
    assert bag[("dl", "cat", "nsubj")] == 1 and bag[("lh", "nsubj", "stumbled")] == 1
    assert bag[("dl", "stumbled", "root")] == 1 and bag[("lh", "root", "<root>")] == 1
    assert sum(bag.values()) == 8


def test_the_parse_cache_is_hit_on_a_rerun_and_a_gamma_change(cache_dir):
    hyps, refs = SENTENCES[:2], [[SENTENCES[2]], [SENTENCES[2]]]
    cache = ParseCache(cache_dir)
    original = parsing.parse_cache
    try:
        parsing.parse_cache = lambda: cache  # type: ignore[assignment]
        first = METRICS["edpm"]().corpus_score(hyps, refs).score
        assert cache.counts.parsed == 3  # the shared reference once
        again = METRICS["edpm"]().corpus_score(hyps, refs).score
        METRICS["edpm"](gamma=1.0, n=10).corpus_score(hyps, refs)
        assert cache.counts.parsed == 3 and again == first
        fresh = ParseCache(cache_dir)  # another process: the file answers
        parsing.parse_cache = lambda: fresh  # type: ignore[assignment]
        assert METRICS["edpm"]().corpus_score(hyps, refs).score == first
        assert fresh.counts.parsed == 0 and fresh.counts.disk_hits == 3
    finally:
        parsing.parse_cache = original  # type: ignore[assignment]


def test_blank_tokenizer_agrees_with_the_models_tokens():
    tokens = parsing.tokenize_many(SENTENCES)
    nlp = parsing.load_pipeline(MODEL, VERSION)
    for text in SENTENCES:
        assert tokens[text] == tuple(t.text for t in nlp.tokenizer(text))


# --- the demo MQM TED en-de set --------------------------------------------------------------


@cache
def demo(systems: int = 2, segments: int = 40) -> tuple[list[str], dict[str, list[str]]]:
    """References and a few systems' first segments of MQM TED en-de (markup removed)."""
    path = shared_path("wmt-mqm-ted", "ted", "ende", "mqm_ted_ende.tsv")
    cells: dict[tuple[str, int], str] = {}
    with open(path, encoding="utf-8") as handle:
        reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        next(reader)
        for row in reader:
            cells[(row[0], int(row[3]))] = row[6].replace("<v>", "").replace("</v>", "")
    ids = sorted({k for s, k in cells if s == "ref"})[:segments]
    names = sorted({s for s, _ in cells if s != "ref"})[:systems]
    return [cells[("ref", k)] for k in ids], {
        s: [cells.get((s, k), "") for k in ids] for s in names
    }


SCRIPT = """
import json, sys
from metrics.core import METRICS
data = json.load(sys.stdin)
measure = METRICS["edpm"](**data["options"])
stats = measure.statistics(data["hyps"], data["refs"], measure.context(data["refs"]))
print(json.dumps(measure.sentence_scores(stats).tolist()))
"""


@pytest.mark.parametrize("options", [{"n": 1}, {"n": 50}])
def test_sentence_scores_are_the_same_in_another_process(cache_dir, options):
    references, systems = demo()
    hyps = next(iter(systems.values()))[:12]
    refs = [[r] for r in references[:12]]
    measure = METRICS["edpm"](**options)
    here = measure.sentence_scores(measure.statistics(hyps, refs, measure.context(refs)))
    environment = {**os.environ, "EVALTRANS_PARSE_CACHE": "off", "PYTHONPATH": str(PROJECT_DIR)}
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        input=json.dumps({"options": options, "hyps": hyps, "refs": refs}),
        capture_output=True,
        text=True,
        check=True,
        env=environment,
        cwd=PROJECT_DIR,
    )
    assert json.loads(result.stdout) == pytest.approx(here.tolist(), abs=1e-9)


def test_demo_corpus_score_is_the_f_of_summed_segment_statistics(cache_dir):
    references, systems = demo()
    refs = [[r] for r in references]
    measure = METRICS["edpm"](n=1)
    context = measure.context(refs)
    for hyps in systems.values():
        stats = measure.statistics(hyps, refs, context)
        chunks = np.vstack(
            [measure.statistics(hyps[i : i + 7], refs[i : i + 7], context) for i in range(0, 40, 7)]
        )
        assert np.allclose(chunks, stats)
        match, hyp_total, ref_total = stats.sum(axis=0)
        expected = 200 * match / (hyp_total + ref_total)
        assert measure.aggregate(stats).score == pytest.approx(expected)
        # every tree gives every token one arc: T = 4·|s| − 1 per non-empty sentence
        tokens = parsing.tokenize_many([parsing.normalise(h) for h in hyps])
        lengths = np.array([len(tokens[parsing.normalise(h)]) for h in hyps])
        assert stats[:, 1].tolist() == np.where(lengths > 0, 4 * lengths - 1, 0).tolist()


def test_the_site_and_other_measures_never_import_spacy():
    code = (
        "import sys\n"
        "from metrics.core import METRICS\n"
        "import metrics.measure_choices\n"
        "for name in METRICS:\n"
        "    METRICS[name].describe()\n"
        "    METRICS[name]() if name != 'edpm' else METRICS[name]().signature(1)\n"
        "METRICS['bleu']().corpus_score(['a b'], [['a b']])\n"
        "print('spacy' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=PROJECT_DIR,
        env={**os.environ, "PYTHONPATH": str(PROJECT_DIR)},
    )
    assert result.stdout.strip() == "False"


def test_the_command_line_scores_edpm(tmp_path, cache_dir):
    hyp, ref = Path(tmp_path / "hyp.txt"), Path(tmp_path / "ref.txt")
    hyp.write_text("The cat stumbled.\n", encoding="utf-8")
    ref.write_text("A cat fell down.\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "metrics.core", "score", "--measure", "edpm", "--hyp", str(hyp)]
        + ["--ref", str(ref), "--option", "n=1", "--sentences"],
        capture_output=True,
        text=True,
        check=True,
        cwd=PROJECT_DIR,
        env={**os.environ, "EVALTRANS_PARSE_CACHE": str(cache_dir)},
    )
    output = json.loads(result.stdout)
    assert output["signature"].startswith("edpm|nrefs:1|tier:dpm-1best|")
    assert output["sentences"] == [pytest.approx(output["score"])]
