"""Text baselines: no protection, and PII scrubbing with scrubadub or Microsoft Presidio.

Scrubbing removes what identifies a person *directly* (e-mail addresses, phone numbers, URLs, names); it leaves
the style and the content, which is why it barely hurts an authorship attacker [WK18]. Both scrubbers are
deterministic, so the experiment harness computes their output once per corpus and caches it.

References
----------
.. [WK18] Weggenmann & Kerschbaum, SIGIR 2018 (scrubadub as the baseline of its Table 3).
"""

from __future__ import annotations

import warnings

from authorguard.base import TextObfuscator
from authorguard.exceptions import AuthorguardError
from authorguard.utils.validation import check_number, check_texts


class Original(TextObfuscator):
    """No protection: each document is released as it is (the reference every gain is measured against)."""

    def obfuscate(self, raw_documents) -> list[str]:
        return check_texts(raw_documents, type(self).__name__)


class Scrubadub(TextObfuscator):
    """PII scrubbing with scrubadub's default detectors (credential, credit card, e-mail, phone, Twitter
    handle, URL, social security number); each hit becomes a placeholder such as ``{{EMAIL}}``.

    scrubadub 2's name detector needs TextBlob's tagger data, which is not installed offline; names are
    therefore left in place (use :class:`Presidio` for names).
    """

    def obfuscate(self, raw_documents) -> list[str]:
        texts = check_texts(raw_documents, type(self).__name__)
        try:
            import scrubadub
        except ImportError as error:
            raise AuthorguardError(
                "the scrubadub baseline needs the 'baselines' extra: pip install 'authorguard[baselines]'"
            ) from error
        scrubber = scrubadub.Scrubber()
        with warnings.catch_warnings():
            # scrubadub 2.0.1 warns about its own placeholder API on every hit
            warnings.filterwarnings("ignore", category=DeprecationWarning, module="scrubadub")
            return [scrubber.clean(text) if text else text for text in texts]


def _offline_tldextract() -> None:
    """Make Presidio's URL recogniser use tldextract's bundled public-suffix snapshot instead of fetching the
    list from the internet on first use (which fails offline and makes results depend on the day)."""
    import tldextract.tldextract as module

    module.TLD_EXTRACTOR = module.TLDExtract(suffix_list_urls=(), cache_dir=None)


class Presidio(TextObfuscator):
    """PII scrubbing with Microsoft Presidio (spaCy en_core_web_sm NER plus pattern recognisers): each
    entity (person, location, e-mail, phone, URL, date, ...) becomes ``<ENTITY_TYPE>``.

    Parameters
    ----------
    score_threshold : float, default=0.35
        Minimum recogniser confidence for an entity to be replaced. Must be in [0, 1].
    batch_size : int, default=32
        Documents per spaCy batch.
    """

    def __init__(self, score_threshold: float = 0.35, batch_size: int = 32) -> None:
        self.score_threshold = score_threshold
        self.batch_size = batch_size

    def _engines(self):
        try:
            from presidio_analyzer import AnalyzerEngine, BatchAnalyzerEngine
            from presidio_analyzer.nlp_engine import NlpEngineProvider
            from presidio_anonymizer import AnonymizerEngine
        except ImportError as error:
            raise AuthorguardError(
                "the presidio baseline needs the 'baselines' extra: pip install 'authorguard[baselines]'"
            ) from error
        _offline_tldextract()
        from authorguard.text.resources import spacy_model_path

        configuration = {"nlp_engine_name": "spacy", "models": [{"lang_code": "en", "model_name": spacy_model_path()}]}
        nlp_engine = NlpEngineProvider(nlp_configuration=configuration).create_engine()
        analyzer = AnalyzerEngine(nlp_engine=nlp_engine, supported_languages=["en"])
        return BatchAnalyzerEngine(analyzer_engine=analyzer), AnonymizerEngine()

    def obfuscate(self, raw_documents) -> list[str]:
        name = type(self).__name__
        check_number(self.score_threshold, "score_threshold", name, low=0.0, high=1.0, closed="both")
        check_number(self.batch_size, "batch_size", name, kind=int, low=1, closed="left")
        texts = check_texts(raw_documents, name)
        batch_analyzer, anonymizer = self._engines()
        findings = batch_analyzer.analyze_iterator(
            texts, language="en", batch_size=self.batch_size, score_threshold=self.score_threshold
        )
        return [
            anonymizer.anonymize(text=text, analyzer_results=found).text if found else text
            for text, found in zip(texts, findings)
        ]
