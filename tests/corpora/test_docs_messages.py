"""Every message the corpus import and export can show a user is listed in docs/import-formats.md,
so the documentation cannot fall behind the code."""

from __future__ import annotations

import ast
import inspect
import re
import string
from types import ModuleType

import pytest

from evaltrans.corpora import forms, import_jobs, parsing, services, tasks, views
from evaltrans.corpora.formats import (
    common,
    evaltrans_xml,
    mqm_tsv,
    reading,
    sgml,
    text,
    wmt_xml,
    xmlsafe,
)
from evaltrans.corpora.management.commands import export_corpus, import_corpus, index_words
from tests.conftest import PROJECT_DIR

MESSAGE_MODULES: tuple[ModuleType, ...] = (
    common,
    evaltrans_xml,
    mqm_tsv,
    reading,
    sgml,
    text,
    wmt_xml,
    xmlsafe,
    forms,
    import_jobs,
    parsing,
    services,
    tasks,
    views,
    export_corpus,
    import_corpus,
    index_words,
)
# Upper-case string constants of those modules that are not messages.
NOT_MESSAGES = {
    "DEFAULT_DOC_ID",
    "DEFAULT_ENCODING",
    "DEFAULT_REFERENCE_LABEL",
    "DOCS_NAME",
    "DOCTYPE_HEADER",
    "MANIFEST_FORMAT",
    "MANIFEST_NAME",
    "PHASE_PARSING",
    "PHASE_STORING",
}


def messages() -> list[tuple[str, str]]:
    """(module.NAME, text) of every upper-case string constant a module defines (not imports)."""
    found = []
    for module in MESSAGE_MODULES:
        for statement in ast.parse(inspect.getsource(module)).body:
            if not isinstance(statement, ast.Assign):
                continue
            for target in statement.targets:
                name = getattr(target, "id", "")
                public = name.isupper() and not name.startswith("_")
                value = getattr(module, name, None) if public else None
                if isinstance(value, str) and name not in NOT_MESSAGES:
                    found.append((f"{module.__name__.rsplit('.', 1)[-1]}.{name}", value))
    return found


def pattern(message: str) -> re.Pattern[str]:
    """The message with each placeholder standing for any text on the same line: the docs must
    quote every fixed part as it is, and may write the filled-in parts as 'X', N, …"""
    parts = []
    for literal, field, _spec, _conversion in string.Formatter().parse(message):
        parts.append(re.escape(literal))
        if field is not None:
            parts.append(r"[^\n]+?")
    return re.compile("".join(parts))


def documented_text() -> str:
    markdown = (PROJECT_DIR / "docs" / "import-formats.md").read_text(encoding="utf-8")
    return markdown.replace("\\<", "<")  # tables escape "<" as "\<"


def test_every_module_contributes_messages():
    modules = {qualified.split(".")[0] for qualified, _ in messages()}
    assert modules == {module.__name__.rsplit(".", 1)[-1] for module in MESSAGE_MODULES}


@pytest.mark.parametrize(("constant", "message"), messages(), ids=[name for name, _ in messages()])
def test_message_is_documented(constant, message):
    assert pattern(message).search(documented_text()), (
        f"{constant} is not in docs/import-formats.md: {message!r}"
    )
