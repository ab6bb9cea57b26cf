"""Text others wrote, rendered once per distinct text (medreview/safe_html.py)."""

from django.utils.safestring import SafeString

from medreview.text import safe_html


def test_it_renders_a_text_once_and_serves_it_again_sanitised(monkeypatch):
    calls = []
    real = safe_html.markdown_lib.markdown
    monkeypatch.setattr(safe_html.markdown_lib, "markdown", lambda text, **kw: calls.append(text) or real(text, **kw))
    safe_html._rendered.cache_clear()
    guidelines = "Rate **each** item.\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1))"

    first = safe_html.markdown_to_safe_html(guidelines)
    again = safe_html.markdown_to_safe_html(guidelines)
    other = safe_html.markdown_to_safe_html("Rate *this* one.")

    assert calls == [guidelines, "Rate *this* one."]  # the repeated text was not rendered again
    assert again == first and isinstance(again, SafeString)
    assert "<strong>each</strong>" in again and "<script" not in again and "javascript:" not in again
    assert other == "<p>Rate <em>this</em> one.</p>"


def test_it_renders_nothing_for_empty_or_non_text():
    assert safe_html.markdown_to_safe_html("") == ""
    assert safe_html.markdown_to_safe_html(None) == ""
