"""Write docs/index.md (the documentation site's home page) from README.md, with the README's links made relative
to docs/: the README is the one source of the front page. tests/test_docs.py fails when the two differ.

    python scripts/docs/index_from_readme.py
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOTE = "<!-- generated from README.md by scripts/docs/index_from_readme.py: edit the README -->\n"
#: files at the repository root that the site shows as pages of its own
ROOT_PAGES = {"CONTRIBUTING.md": "contributing.md", "CHANGELOG.md": "changelog.md"}
REPOSITORY = "https://github.com/authorguard/authorguard/blob/main/"


def index_text(readme: str) -> str:
    """The README with its links rewritten for a page in docs/."""

    def link(match: re.Match) -> str:
        target = match.group(1)
        if target.startswith(("http://", "https://", "#")):
            return match.group(0)
        if target.startswith("docs/"):
            return f"]({target[len('docs/') :]})"
        if target in ROOT_PAGES:
            return f"]({ROOT_PAGES[target]})"
        return f"]({REPOSITORY}{target})"

    return NOTE + re.sub(r"\]\(([^)]+)\)", link, readme)


def main() -> None:
    (ROOT / "docs" / "index.md").write_text(
        index_text((ROOT / "README.md").read_text(encoding="utf-8")), encoding="utf-8"
    )


if __name__ == "__main__":
    main()
