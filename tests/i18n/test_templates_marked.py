"""Every user-facing string of every template is marked for translation: literal text and the
values of user-facing attributes (title, placeholder, aria-label, alt...) sit in {% translate %} or
{% blocktranslate %} (medreview.text.template_text walks Django's template tokens; see its docstring
for what is not text)."""

from __future__ import annotations

from pathlib import Path

from medreview.text.template_text import scan_templates, untranslated

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


def test_the_scanner_finds_text_attributes_and_skips_what_is_not_text():
    source = (
        '{% load i18n %}<h1 title="Hello there">Welcome {{ user }}</h1><kbd>Enter</kbd>'
        '<script>var a = "not text";</script>{# note #}{% comment %}Not shown{% endcomment %}'
        '<p>{% translate "Marked" %}</p><a aria-label="{% if x %}Open{% endif %}">·</a>'
        '{% blocktranslate %}Also marked {{ n }}{% endblocktranslate %}'
    )
    assert [(u.kind, u.text) for u in untranslated(source)] == [
        ("title", "Hello there"), ("text", "Welcome"), ("aria-label", "Open")]


def test_no_template_has_unmarked_text():
    found = {name: [f"{u.line}: {u.text}" for u in items] for name, items in scan_templates(TEMPLATES).items()}
    assert found == {}
