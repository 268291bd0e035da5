"""Shared plotting helpers: palettes, and label escaping that makes plotly show data literally.

``plotly_shows`` follows plotly.js' own text rendering (``svg_text_utils``: pieces split at
``<…>``, the tags it styles interpreted, entities decoded in the rest; the regular expressions
and entity table are copied from the plotly.js that ``requirements.txt`` ships), so the tests
check what a reader would see, not how the escaped text looks.
"""

from __future__ import annotations

import re

import pytest

from evaltrans import plotting

# From plotly.js (src/lib/svg_text_utils.js).
TAG_SPLIT = re.compile(r"(<[^<>]*>)")
TAG = re.compile(r"<(/?)([^ >]*)(\s+(.*))?>", re.I)
STYLED_TAGS = {"br", "sup", "sub", "s", "u", "b", "i", "a", "span", "em"}
ENTITY = re.compile(r"&(#\d+|#x[\da-fA-F]+|[a-z]+);")
NAMED = {"mu": "μ", "amp": "&", "lt": "<", "gt": ">", "nbsp": "\xa0", "times": "×",
         "plusmn": "±", "deg": "°"}  # fmt: skip
TEMPLATE = re.compile(r"%{([^\s%{}:]*)([:|\|][^}]*)?}")


def _entity(match: re.Match[str]) -> str:
    inner = match.group(1)
    if inner.startswith("#"):
        return chr(int(inner[2:], 16) if inner[1] == "x" else int(inner[1:]))
    return NAMED.get(inner, match.group(0))


def plotly_shows(text: str) -> str:
    """The characters plotly draws for ``text`` (styling tags dropped, ``<br>`` as a newline)."""
    shown = []
    for piece in TAG_SPLIT.split(re.sub(r"\r\n?|\n", " ", text)):
        tag = TAG.fullmatch(piece)
        name = tag.group(2).lower() if tag else None
        if name == "br":
            shown.append("\n")
        elif name not in STYLED_TAGS:
            shown.append(ENTITY.sub(_entity, piece))
    return "".join(shown)


def template_shows(template: str, values: dict[str, str]) -> str:
    """A hover template filled in as plotly does, then drawn."""
    filled = TEMPLATE.sub(lambda match: values.get(match.group(1), ""), template)
    return plotly_shows(filled)


SENTENCES = [
    "Click <b>here</b> & save",
    "Tom &amp; Jerry",
    '<img src=x onerror="alert(1)">',
    'It\'s a "quoted" <i>word</i>',
    "5 < 6 > 4 &lt; &#60; &nbsp;",
    "<br>line<sub>2</sub>",
    "plain text",
]


def test_the_oracle_interprets_what_plotly_interprets():
    assert plotly_shows("a <b>bold</b> &amp; b") == "a bold & b"
    assert plotly_shows("x<br>y") == "x\ny"
    assert plotly_shows("&quot;") == "&quot;"


@pytest.mark.parametrize("sentence", SENTENCES)
def test_labels_show_the_text_literally(sentence):
    assert plotly_shows(plotting.escape_label(sentence)) == sentence


def test_quotes_are_left_alone_since_plotly_would_show_an_html_entity_for_them():
    assert plotting.escape_label('say "hi"') == 'say "hi"'
    assert plotting.escape_label("<b>&amp;</b>") == "&lt;b&gt;&amp;amp;&lt;/b&gt;"


@pytest.mark.parametrize("sentence", [*SENTENCES, "100%{x} done", "%{customdata[0]}"])
def test_text_in_a_template_shows_literally(sentence):
    template = "Judge " + plotting.escape_template(sentence) + "<br>z = %{y}"
    assert template_shows(template, {"y": "1.5"}) == f"Judge {sentence}\nz = 1.5"


def test_system_colours_do_not_depend_on_order():
    assert plotting.system_colors(["b", "a", "c"]) == plotting.system_colors(["c", "b", "a"])
    assert len(set(plotting.system_colors([str(k) for k in range(20)]).values())) == 20


def test_level_colours_run_from_red_to_green():
    colours = plotting.level_colors(5)
    assert colours[0] == plotting.LEVEL_RAMP[0] and colours[-1] == plotting.LEVEL_RAMP[-1]
    assert plotting.level_colors(1) == [plotting.LEVEL_RAMP[-1]]


def test_a_figure_has_the_house_layout_and_config():
    figure = plotting.figure(
        [], plotting.layout("Title", xaxis=plotting.axis("x", type="category"))
    )
    assert figure["layout"]["title"]["text"] == "Title"
    assert figure["layout"]["xaxis"] == {
        "title": {"text": "x"},
        "gridcolor": plotting.GRID,
        "zerolinecolor": plotting.ZERO_LINE,
        "type": "category",
    }
    assert figure["config"] == {"displaylogo": False, "responsive": True}
