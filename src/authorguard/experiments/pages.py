"""The report as pages: Markdown tables, a self-contained HTML page (figures inlined as base64 PNG), and the
check that a headless Chromium decodes every figure of it."""

from __future__ import annotations

import base64
import html
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pandas as pd


@dataclass(frozen=True)
class Figure:
    name: str
    title: str
    caption: str


def markdown_table(frame: pd.DataFrame) -> str:
    columns = list(frame.columns)
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join(" --- " for _ in columns) + "|"]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


_STYLE = (
    "body{font-family:sans-serif;max-width:1200px;margin:2em auto;color:#222}"
    "table{border-collapse:collapse;margin:1em 0;font-size:14px}td,th{border:1px solid #bbb;padding:3px 8px}"
    "th{background:#eee}img{max-width:100%;border:1px solid #ddd}figcaption{font-size:13px;color:#555}"
)


# After load, the page records how many of its figures decoded: headless checks read it from the DOM.
_CHECK_SCRIPT = (
    "window.addEventListener('load',function(){var i=document.querySelectorAll('img.figure');var n=0;"
    "i.forEach(function(x){if(x.complete&&x.naturalWidth>0){n++;}});"
    "document.body.setAttribute('data-figures-loaded',n+'/'+i.length);});"
)


def _inline(text: str) -> str:
    """Markdown's **bold** and `code` in an escaped line, for the intro paragraph."""
    escaped = html.escape(text)
    escaped = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", escaped)
    return re.sub(r"`(.+?)`", r"<code>\1</code>", escaped)


def html_page(title: str, intro: str, sections, figures: list[Figure], figure_dir: Path) -> str:
    parts = [
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
        f"<style>{_STYLE}</style></head><body><h1>{html.escape(title)}</h1><p>{_inline(intro)}</p>",
    ]
    for _, heading, table in sections:
        parts.append(f"<h2>{html.escape(heading)}</h2>")
        parts.append(table.to_html(index=False, escape=True, border=0))
    for figure in figures:
        data = base64.b64encode((figure_dir / f"{figure.name}.png").read_bytes()).decode("ascii")
        parts.append(
            f"<figure><h2>{html.escape(figure.title)}</h2><img class='figure' alt='{html.escape(figure.title)}' "
            f"src='data:image/png;base64,{data}'><figcaption>{_inline(figure.caption)}</figcaption></figure>"
        )
    parts.append(f"<script>{_CHECK_SCRIPT}</script></body></html>")
    return "".join(parts)


def find_chromium() -> str | None:
    """The headless browser: ``chromium`` (Debian), ``chromium-browser`` or ``google-chrome`` on PATH."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def check_html_in_chromium(
    path: str | os.PathLike, screenshot: str | os.PathLike | None = None, timeout: float = 120
) -> tuple[int, int]:
    """Render ``path`` in headless Chromium; (figures decoded, figures on the page). Optionally saves a PNG."""
    browser = find_chromium()
    if browser is None:
        raise FileNotFoundError("no headless Chromium on PATH (Debian: apt-get install chromium)")
    url = Path(path).resolve().as_uri()
    with tempfile.TemporaryDirectory() as profile:
        flags = [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            f"--user-data-dir={profile}",
            "--virtual-time-budget=10000",
        ]
        dom = subprocess.run(
            flags + ["--dump-dom", url], capture_output=True, text=True, timeout=timeout, check=True
        ).stdout
        if screenshot is not None:
            subprocess.run(
                flags + [f"--screenshot={Path(screenshot).resolve()}", "--window-size=1280,2400", url],
                capture_output=True,
                timeout=timeout,
                check=True,
            )
    match = re.search(r'data-figures-loaded="(\d+)/(\d+)"', dom)
    if not match:
        raise RuntimeError(f"{path}: the page did not finish loading in Chromium")
    return int(match.group(1)), int(match.group(2))
