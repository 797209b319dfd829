"""Display helpers for untrusted catalog text."""

import pytest

from components.text import md_escape, plain_text


@pytest.mark.parametrize("raw,shown", [
    ("Do **not** call it twice", "Do not call it twice"),  # TMDB writes emphasis in its descriptions
    ("Use *only* for movies", "Use only for movies"),
    ("See [the guide](https://example.test/guide) first", "See the guide (https://example.test/guide) first"),
    ("![logo](https://example.test/logo.png) Logos", "logo (https://example.test/logo.png) Logos"),
    ("<p>Paragraph with <b>bold</b><br/></p>", "Paragraph with bold"),
    ("Tom &amp; Jerry", "Tom &amp; Jerry"),  # entities stay as written
    ("Evil <script>x()</script> and <svg onload=\"x()\">", "Evil <script>x()</script> and <svg onload=\"x()\">"),
    ("[click](javascript:alert(1))", "click (javascript:alert(1))"),
    ("Pass `page` to page", "Pass page to page"),
    ("## Overview\nLists things", "Overview\nLists things"),
    ("__init__ and _id_ and snake_case_name stay", "__init__ and _id_ and snake_case_name stay"),
    ("2*3*4 and a * b", "2*3*4 and a * b"),
    ("_several words here_ and __two words__", "several words here and two words"),
])
def test_plain_text_reads_like_the_rendered_description(raw, shown):
    assert plain_text(raw) == shown


def test_plain_text_output_is_still_escaped_before_markdown():
    hostile = "[click](javascript:alert(1)) <img src=x onerror=alert(1)> **x**"
    shown = md_escape(plain_text(hostile))
    assert "<" not in shown.replace("\\<", "") and "](" not in shown
