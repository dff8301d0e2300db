"""What the roles view's fidelity pieces cost in privacy (issue 65): the floor ``view:roles`` with each piece
switched off, against the independent attacker of ``privacy_bac10.py`` (same sample), retrained on the view.

    python scripts/faithful/roles_view_ablation.py --words 200
    PYTHONPATH=<worktree of 84d7e61>/src python scripts/faithful/roles_view_ablation.py --words 200 --variants full

Variants: ``full`` (the view as committed), ``no-punctuation`` (no punctuation kept around words), ``no-quotations``
(quotations not held whole), ``no-atoms`` (every core read as a word: re-cased, contractions read), ``none`` (all
three off). Run on an older tree with ``--variants full`` for that tree's view. Prints one line per variant: the
character and word attackers' accuracy, static and retrained.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from privacy_bac10 import _attack, _sample

VARIANTS = ("full", "no-punctuation", "no-quotations", "no-atoms", "none")


def _switch(views, variant: str) -> None:
    """Turn off the pieces ``variant`` names, in the roles view module itself (the view functions read these names)."""
    if variant in ("no-punctuation", "none"):
        views.KEPT_PUNCTUATION = frozenset()
        views.KEPT_MARKS = frozenset()
    if variant in ("no-quotations", "none"):
        views.hold_quotations = lambda text: text
    if variant in ("no-atoms", "none"):
        views.is_atom = lambda core: False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--words", type=int, default=200)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    args = parser.parse_args()
    import importlib

    from authorguard.neural.realiser.model import view_as_text

    train, train_y, test, test_y = _sample(args.words, 80, 500, 0)
    for variant in args.variants.split(","):
        if variant not in VARIANTS:
            raise SystemExit(f"unknown variant {variant!r} (variants: {', '.join(VARIANTS)})")
        import authorguard.text.views.roles as views

        views = importlib.reload(views)
        _switch(views, variant)
        train_view = [view_as_text(views.roles_view(t)) for t in train]
        test_view = [view_as_text(views.roles_view(t)) for t in test]
        static = _attack(train, train_y, test_view, test_y)
        retrained = _attack(train_view, train_y, test_view, test_y)
        row = {f"{k} static": round(float(v.mean()), 3) for k, v in static.items()}
        row |= {f"{k} retrained": round(float(v.mean()), 3) for k, v in retrained.items()}
        print(variant, json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
