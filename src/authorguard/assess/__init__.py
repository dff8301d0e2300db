"""``authorguard assess``: a data owner's corpus in, a re-identification risk audit and a recommended method out.

profile (what the data is, whether it can be measured) -> plan (which documents, attackers and methods fit the
time budget) -> the experiment harness (every method x threat model x attacker on a split within each author) ->
recommend (the privacy-utility front, worst case over attackers, confidence intervals) -> report.

``authorguard.assess(records, output_dir=...)``: this package is callable; it calls
:func:`authorguard.assess.run.assess` (imported on the first call).
"""

from authorguard.utils.modules import make_callable

make_callable(__name__, "authorguard.assess.run:assess")
