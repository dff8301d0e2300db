"""Screenshots of the check's web page for the docs (docs/results/check/page-*.png): a real blogger of the staged
sample (left out of the background) pastes a post and their earlier posts, checks, looks at where the evidence
is and applies the automatic faithful edits in the editor, rewrites with a method, copies the rewrite.

  AUTHORGUARD_DATA=../shared/data python scripts/check/screenshots.py --method synonyms -o docs/results/check
"""

from __future__ import annotations

import argparse
import socket
import threading
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--method", default="synonyms")
    parser.add_argument("--known-words", type=int, default=2500)
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args()

    import uvicorn
    from playwright.sync_api import sync_playwright

    from authorguard.check.background import load_background
    from authorguard.check.texts import cut_pieces, word_count
    from authorguard.check.web.app import create_app
    from authorguard.experiments.pages import find_chromium

    pool = load_background("blog")
    writer = sorted(a for a in pool.authors if sum(word_count(d) for d in pool.authors[a]) >= args.known_words + 400)[7]
    pieces = cut_pieces(pool.authors[writer], 250, limit=args.known_words + 250)
    known, text = pieces[:-1], pieces[-1]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(methods=[args.method], background=pool.without([writer])),
            host="127.0.0.1",
            port=port,
            log_level="warning",
        )
    )
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    args.output.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=find_chromium(), headless=True)
        page = browser.new_context(
            permissions=["clipboard-read", "clipboard-write"], viewport={"width": 1200, "height": 1000}
        ).new_page()
        page.goto(f"http://127.0.0.1:{port}")
        page.fill("#text", text)
        page.fill("#known", "\n---\n".join(known))
        page.select_option("#sizes", "10,100")
        page.click("#check")
        page.wait_for_selector("#verdict:not(:empty)", timeout=600_000)
        page.screenshot(path=str(args.output / "page-check.png"), full_page=True)
        page.locator("#evidence li").first.click()
        page.click("#apply-normalise")
        page.wait_for_selector("#recheck-state:has-text('checked your edit')", timeout=120_000)
        page.locator("#marked").scroll_into_view_if_needed()
        page.screenshot(path=str(args.output / "page-editor.png"), full_page=True)
        page.fill("#text", text)
        page.click("#rewrite")
        page.wait_for_function(
            "document.querySelectorAll('#rewrite-rankings tbody tr').length > 0 && "
            "!document.getElementById('rewrite').disabled",
            timeout=600_000,
        )
        page.click("#copy")
        page.wait_for_selector("#copied:has-text('copied')")
        page.locator("#rewritten").scroll_into_view_if_needed()
        page.screenshot(path=str(args.output / "page-rewrite.png"), full_page=True)
        print(page.text_content("#verdict"))
        print(page.text_content("#rewrite-summary"))
        browser.close()
    server.should_exit = True
    print(f"screenshots in {args.output} (blogger {writer})")


if __name__ == "__main__":
    main()
