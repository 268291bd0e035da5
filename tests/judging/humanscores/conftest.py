"""Small judgment files and a small test set they belong to, and users of each role."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaltrans.corpora.formats.base import CorpusData, SegmentData
from evaltrans.corpora.services import testset_import
from evaltrans.roles import JUDGES_GROUP
from tests.conftest import make_user

SOURCES = ["Guten Morgen.", "Wie geht es dir?", "Das ist gut."]
MQM_HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\tcomment"


def mqm_rows() -> list[str]:
    """Two systems and a reference, three segments, two raters per candidate (so judges agree
    on shared candidates), one rater name with HTML in it."""
    rows = []
    errors = {
        ("sysA", "1"): ("Accuracy/Mistranslation", "Major"),
        ("sysA", "2"): ("Fluency/Grammar", "Minor"),
        ("sysB", "1"): ("Fluency/Punctuation", "Minor"),
        ("sysB", "3"): ("Accuracy/Omission", "Major"),
    }
    for system in ("sysA", "sysB", "ref"):
        for seg, source in enumerate(SOURCES, 1):
            for rater in ("rater1", "<b>rater2</b>"):
                category, severity = errors.get((system, str(seg)), ("No-error", "No-error"))
                if rater != "rater1" and severity == "Major":
                    severity = "Minor"
                rows.append(
                    f"{system}\tdoc1\t1\t{seg}\t{rater}\t{source}\t<v>x</v> y\t{category}\t{severity}\t"
                )
    return [MQM_HEADER, *rows]


DA_HEADER = "HITId WorkerId Input.src Input.trg Input.item hit sys_id rid type sid score time"
DA_ROWS = [
    "H1 W1 de en ad 1 sysA.1 10 SYSTEM 1 0.5 100.0",
    "H1 W1 de en ad 1 sysB.2 10 SYSTEM 1 -0.5 100.0",
    "H1 W1 de en ad 1 sysA.1 10 REPEAT 1 0.5 100.0",
    "H1 W1 de en ad 1 sysB.2 10 BAD_REF 2 -1.0 100.0",
    "H2 W2 de en ad 2 sysA.1 11 SYSTEM 1 1.0 60.0",
    "H2 W2 de en ad 2 sysB.2 11 SYSTEM 1 -1.0 60.0",
    "H2 W2 de en ad 2 sysA.1 11 SYSTEM 2 0.0 60.0",
]
# W1: mean 50, sd 20 -> z 0.5 = 60, -0.5 = 40, -1.0 = 30; W2: mean 70, sd 10.
DA_STATS = ['[1] "W1"', "[1] 50", "[1] 20", '[1] "W2"', "[1] 70", "[1] 10"]

EVALTRANS_XML = """<?xml version="1.0" encoding="UTF-8"?>
<database>
  <levels class="fluency" count="6" gray="2" green="4" perfect="5" firstvalid="1"/>
  <levels class="adequacy" count="6" gray="2" green="4" perfect="5" firstvalid="1"/>
  <levels class="isPerfect" count="2" gray="0" green="1" perfect="1" firstvalid="0"/>
  <source seg="1"><s_sent>Guten Morgen.</s_sent><targets>
    <tgt><t_sent>Good morning.</t_sent><eval class="isPerfect" val="1"/></tgt>
    <tgt sys="sysA"><t_sent>Good tomorrow.</t_sent>
      <eval class="fluency" val="4" evaluator="ann"/><eval class="adequacy" val="2" evaluator="ann"/>
      <eval class="fluency" val="3" evaluator="bob"/><eval class="adequacy" val="{value}" evaluator="bob"/>
      <eval class="isPerfect" val="0"/></tgt>
  </targets></source>
  <source seg="2"><s_sent>Wie geht es dir?</s_sent><targets>
    <tgt><t_sent>How are you?</t_sent><eval class="isPerfect" val="1"/></tgt>
    <tgt sys="sysA"><t_sent>How goes it?</t_sent>
      <eval class="fluency" val="2" evaluator="ann"/><eval class="adequacy" val="4" evaluator="ann"/>
      <eval class="fluency" val="5" evaluator="bob"/><eval class="adequacy" val="5" evaluator="bob"/>
      <eval class="isPerfect" val="0"/></tgt>
  </targets></source>
</database>
"""


def write(path: Path, lines: list[str] | str) -> Path:
    text = lines if isinstance(lines, str) else "\n".join(lines) + "\n"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    return {
        "mqm": write(tmp_path / "ratings.tsv", mqm_rows()),
        "da": write(tmp_path / "ad-good-stnd.csv", [DA_HEADER, *DA_ROWS]),
        "stats": write(tmp_path / "ad-trk-mean-sd.txt", DA_STATS),
        "xml": write(tmp_path / "db.xml", EVALTRANS_XML.format(value=3)),
    }


@pytest.fixture
def toy_test_set(db):
    """Three segments with seg ids 1-3, systems sysA and sysB, reference ``ref``."""
    segments = [
        SegmentData(
            source=source,
            doc_id="doc1",
            seg_id=str(number),
            references={"ref": f"ref {number} text"},
            candidates={"sysA": f"a {number}", "sysB": f"b {number}"},
        )
        for number, source in enumerate(SOURCES, 1)
    ]
    corpus = CorpusData("de", "en", segments)
    return testset_import(corpus=corpus, name="toy", import_format="mqm-tsv").test_set


@pytest.fixture
def campaign(db):
    """A finished campaign on the judging app's toy test set: 3 judges, 2 per item, levels
    varying with the screen so that every judge can be normalized."""
    from judging.selectors import screen_next
    from judging.services import campaign_create
    from tests.judging.conftest import toy_corpus
    from tests.judging.test_services import submit_screen

    test_set = testset_import(corpus=toy_corpus(), name="jtoy", import_format="text").test_set
    judges = [make_user(f"judge{number}", group=JUDGES_GROUP) for number in range(1, 4)]
    campaign = campaign_create(
        name="Spring",
        test_set=test_set,
        systems=list(test_set.systems.all()),
        judges=judges,
        seed=7,
        repeat_share=0.0,
        judges_per_item=2,
    )
    for offset, assignment in enumerate(campaign.assignments.order_by("pk")):
        while (screen := screen_next(assignment=assignment)) is not None:
            submit_screen(assignment, screen, 1 + (screen + offset) % 5)
    return campaign
