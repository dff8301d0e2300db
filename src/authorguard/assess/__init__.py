"""``authorguard assess``: a data owner's corpus in, a re-identification risk audit and a recommended method out.

profile (what the data is, whether it can be measured) -> plan (which documents, attackers and methods fit the
time budget) -> the experiment harness (every method x threat model x attacker on a split within each author) ->
recommend (the privacy-utility front, worst case over attackers, confidence intervals) -> report.
"""
