# The public API as type checkers see it (authorguard/__init__.py loads these names on first use).
from authorguard.api import RecordOutcome as RecordOutcome
from authorguard.api import SyntheticCorpus as SyntheticCorpus
from authorguard.api import build_method as build_method
from authorguard.api import obfuscate as obfuscate
from authorguard.api import synthesise as synthesise
from authorguard.assess.run import assess as assess
from authorguard.check.run import check as check
from authorguard.data import load_dataset as load_dataset
from authorguard.methods.syntf import SynTF as SynTF

__version__: str
__all__: list[str]
