"""The page's path as a writer clicks it, timed in headless Chromium (issue 57's targets, 2 cores, warm: the
rewrite with ``bottleneck`` and its re-check under both threat models <= 60 s for a 300-word text; a re-check of
an edit <= 5 s): ``authorguard serve``'s app on 127.0.0.1 with the staged blog background, a blogger's 300-word
post and 2,500 words of their earlier posts pasted, Check (10 and 100 candidates), an edit re-checked, the
automatic faithful edits applied, then Rewrite with the method, twice (the second finds the background's
rewrites on disk).

Usage:  AUTHORGUARD_DATA=../shared/data python benchmarks/check_page_speed.py [--method bottleneck] [--writer N]
"""

from __future__ import annotations

import argparse
import socket
import threading
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--method", default="bottleneck")
    parser.add_argument("--text-words", type=int, default=300)
    parser.add_argument("--known-words", type=int, default=2500)
    parser.add_argument("--writer", type=int, default=0, help="Which eligible blogger (sorted names).")
    parser.add_argument("--rewrites", type=int, default=2)
    args = parser.parse_args()

    import uvicorn
    from playwright.sync_api import sync_playwright

    from authorguard.check.background import load_background
    from authorguard.check.texts import cut_pieces, word_count
    from authorguard.check.web.app import create_app
    from authorguard.experiments.pages import find_chromium

    pool = load_background("blog")
    need = args.known_words + args.text_words + 100
    writer = [a for a in sorted(pool.authors) if sum(word_count(d) for d in pool.authors[a]) >= need][args.writer]
    known = cut_pieces(pool.authors[writer], 250, limit=args.known_words)
    after = -(-args.known_words // args.text_words)  # the first piece of text_words words after the known writing
    text = cut_pieces(pool.authors[writer], args.text_words, limit=args.text_words * (after + 1))[after]
    app = create_app(background=pool.without([writer]), methods=[args.method])
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    print(f"blogger {writer}: text {word_count(text)} words, known {sum(word_count(k) for k in known)} words")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=find_chromium(), headless=True)
        page = browser.new_page(viewport={"width": 1200, "height": 1400})
        page.goto(f"http://127.0.0.1:{port}")
        page.fill("#text", text)
        page.fill("#known", "\n---\n".join(known))
        start = time.perf_counter()
        page.click("#check")
        page.wait_for_selector("#verdict:not(:empty)", timeout=600_000)
        print(f"check (10 and 100 candidates): {time.perf_counter() - start:.1f} s — {page.text_content('#verdict')}")

        def rechecked(button: str) -> float:
            """Seconds from a click to the re-check's answer on the page."""
            page.evaluate("document.getElementById('recheck-state').textContent = ''")
            start = time.perf_counter()
            page.click(button)
            page.wait_for_selector("#recheck-state:has-text('checked your edit')", timeout=120_000)
            return time.perf_counter() - start

        page.fill("#text", text.replace(",", ""))
        print(f"re-check of an edit: {rechecked('#recheck'):.2f} s (page) — {page.text_content('#recheck-state')}")
        page.fill("#text", text)
        print(f"automatic faithful edits applied and re-checked: {rechecked('#apply-normalise'):.2f} s")
        page.fill("#text", text)
        for run in range(args.rewrites):
            page.evaluate("document.getElementById('rewrite-summary').textContent = ''")
            page.evaluate("document.querySelector('#rewrite-rankings tbody').innerHTML = ''")
            start = time.perf_counter()
            page.click("#rewrite")
            page.wait_for_selector("#rewrite-summary:not(:empty)", timeout=600_000)
            shown = time.perf_counter() - start
            page.wait_for_function(
                "document.querySelectorAll('#rewrite-rankings tbody tr').length > 0 && "
                "!document.getElementById('rewrite').disabled",
                timeout=600_000,
            )
            print(
                f"rewrite {run + 1} with {args.method}: shown with its fidelity after {shown:.1f} s, re-checked "
                f"(static and augmented) after {time.perf_counter() - start:.1f} s — "
                f"{page.text_content('#rewrite-summary')[:120]}"
            )
        browser.close()
    server.should_exit = True


if __name__ == "__main__":
    main()
