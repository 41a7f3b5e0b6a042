"""Layouts come from the stylesheet's classes: no template sets a style inline (grid columns
fixed in a style attribute are what kept /funds/ two columns wide on a phone)."""

import re
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


def test_no_template_styles_an_element_inline():
    inline = [
        f"{path.relative_to(TEMPLATES)}:{number}"
        for path in TEMPLATES.rglob("*.html")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\sstyle\s*=", line)
    ]
    assert inline == []
