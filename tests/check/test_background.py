"""The genre rule on real documents of the three staged corpora (held out from its training)."""

from __future__ import annotations

import numpy as np

from authorguard.check.background import fit_genre_classifier


def test_genre_classifier_tells_the_staged_genres_apart(newsgroups):
    from authorguard.data.amt import load_amt
    from authorguard.data.blogs import load_blogs

    rng = np.random.default_rng(0)
    amt = load_amt()
    blogs = load_blogs()
    pools = {
        "essay": [t for t, k in zip(amt.texts, amt.attributes["kind"]) if k == "regular"],
        "blog": [t for t in blogs.texts[:20000] if len(t.split()) >= 50],
        "forum": [t for t in newsgroups.texts if len(t.split()) >= 50],
    }
    train, test = ([], []), ([], [])
    for genre, texts in pools.items():
        chosen = rng.choice(len(texts), 300, replace=False)
        for k, i in enumerate(chosen):
            side = train if k < 200 else test
            side[0].append(texts[i])
            side[1].append(genre)
    model = fit_genre_classifier(*train)
    accuracy = float(np.mean(model.predict(test[0]) == np.asarray(test[1])))
    assert accuracy > 0.85  # chance is 1/3
