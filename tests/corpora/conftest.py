"""Fixtures for corpus tests: small text corpora on disk and users of each role."""

from __future__ import annotations

from pathlib import Path

import pytest

SOURCE = ["Guten Morgen.", "Wie geht es dir?", "Das ist <b>gut</b>."]
REF_A = ["Good morning.", "How are you?", "That is <b>good</b>."]
REF_B = ["Morning!", "How are you doing?", "This is good."]
SYS_X = ["Good morning .", "How is it going?", "<script>alert(1)</script>"]
SYS_Y = ["Good tomorrow.", "How goes it you?", "That is good."]


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def text_corpus(tmp_path: Path) -> dict[str, Path]:
    """A three-segment German-English corpus with two references and two systems."""
    return {
        "source": write_lines(tmp_path / "src.de", SOURCE),
        "ref_a": write_lines(tmp_path / "ref.A.en", REF_A),
        "ref_b": write_lines(tmp_path / "ref.B.en", REF_B),
        "sys_x": write_lines(tmp_path / "sysX.en", SYS_X),
        "sys_y": write_lines(tmp_path / "sysY.en", SYS_Y),
    }


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path_factory) -> Path:
    """Uploaded files of import jobs go to a folder of the test, never to var/media."""
    settings.MEDIA_ROOT = str(tmp_path_factory.mktemp("media"))
    return Path(settings.MEDIA_ROOT)
