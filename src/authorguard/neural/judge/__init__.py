"""Training the fidelity meter's consistency judge: rule-made pairs of development sentences (``pairs``, with
the rules in ``faithful`` and ``changes`` and their word tables in ``tables``), their sources (``data``) and the
trainer (``trainer``); the judge itself is :mod:`authorguard.metrics.fidelity.judge`."""
