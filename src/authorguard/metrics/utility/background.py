"""Background classification, TAROT's utility task on AMT (does the author have a background in the field of
the prompt; the binary mapping from the free-text answers is in :mod:`authorguard.data.amt`)."""

from __future__ import annotations

from authorguard.metrics.utility.topic import TopicClassification


class BackgroundClassification(TopicClassification):
    """The analyst of AMT: tf-idf + NB or linear SVM on the release, predicting the corpus ``labels``
    (background yes / no). Same parameters as :class:`~authorguard.metrics.utility.topic.TopicClassification`."""

    name = "background"
