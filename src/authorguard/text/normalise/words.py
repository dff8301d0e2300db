"""The word rules of ``normalise`` (:mod:`authorguard.text.normalise`): contractions expanded where the reading is
fixed, informal and function-word variants to one form, stretched words to their dictionary form, British
spellings to American ones — each from a fixed table or a dictionary check, never a guess."""

from __future__ import annotations

import functools
import itertools
import re

# contractions whose reading is fixed; the apostrophe-less forms only where no English word is spelled that way
_FIXED_CONTRACTIONS = {
    "can't": "cannot",
    "won't": "will not",
    "shan't": "shall not",
    "i'm": "I am",
    "let's": "let us",
    "y'all": "you all",
    "ya'll": "you all",
    "dont": "do not",
    "doesnt": "does not",
    "didnt": "did not",
    "isnt": "is not",
    "wasnt": "was not",
    "arent": "are not",
    "werent": "were not",
    "havent": "have not",
    "hasnt": "has not",
    "hadnt": "had not",
    "couldnt": "could not",
    "wouldnt": "would not",
    "shouldnt": "should not",
    "mustnt": "must not",
    "youre": "you are",
    "theyre": "they are",
}


# Left out, each with a second reading: "im" (IM, instant messaging), "ive" (Ive, a name), "cant" (a word),
# "wont" (a word), "thats" / "whats" (that is or that has), "ain't" (am / is / are / has / have not).
_LEFT_AS_WRITTEN = frozenset({"ain't"})


_SUFFIXES = {"n't": " not", "'re": " are", "'ve": " have", "'ll": " will", "'m": " am"}


_APOSTROPHE_WORD = re.compile(r"\b[A-Za-z]+(?:n't|'[A-Za-z]{1,2})\b|\b[A-Za-z]+\b")


def _match_case(replacement: str, original: str) -> str:
    if original.isupper() and len(original) > 1 and replacement != "I":
        return replacement.upper()
    if original[:1].isupper():
        return replacement[:1].upper() + replacement[1:]
    return replacement


def _expand_contraction(match: re.Match) -> str:
    word = match.group(0)
    lower = word.lower()
    if lower in _LEFT_AS_WRITTEN:
        return word
    if lower in _FIXED_CONTRACTIONS:
        return _match_case(_FIXED_CONTRACTIONS[lower], word)
    for suffix, expansion in _SUFFIXES.items():
        if lower.endswith(suffix) and len(lower) > len(suffix):
            stem = word[: -len(suffix)]
            if stem.lower() == "i":
                stem = "I"
            tail = expansion.upper() if word.isupper() and len(word) > 2 else expansion
            return stem + tail
    return word


_BEEN = re.compile(r"\b([A-Za-z]+)'([sd])(\s+been)\b", re.IGNORECASE)


def contractions(text: str) -> str:
    """Contractions expanded where the reading is fixed (``n't``, ``'re``, ``'ve``, ``'ll``, ``'m``, ``can't``,
    ``won't``, the apostrophe-less ``dont`` / ``didnt`` / ``youre`` …); ``'s`` and ``'d`` only before ``been``, where
    they can only be *has* and *had*; every other ``'s`` (*is*, *has* or a possessive) and ``'d`` (*had* or
    *would*) is left as written."""
    text = _BEEN.sub(lambda m: m.group(1) + (" has" if m.group(2).lower() == "s" else " had") + m.group(3), text)
    return _APOSTROPHE_WORD.sub(_expand_contraction, text)


#: informal and function-word variants -> one form (single words only; each a variant of the same word or phrase)
VARIANTS = {
    "whilst": "while",
    "amongst": "among",
    "amidst": "amid",
    "unto": "to",
    "gonna": "going to",
    "wanna": "want to",
    "gotta": "got to",
    "kinda": "kind of",
    "sorta": "sort of",
    "outta": "out of",
    "lotta": "lot of",
    "dunno": "do not know",
    "lemme": "let me",
    "gimme": "give me",
    "cuz": "because",
    "coz": "because",
    "bc": "because",
    "b/c": "because",
    "tho": "though",
    "altho": "although",
    "thru": "through",
    "til": "until",
    "u": "you",
    "pls": "please",
    "plz": "please",
    "thx": "thanks",
    "thanx": "thanks",
    "ppl": "people",
    "b4": "before",
    "ok": "okay",
    "kk": "okay",
    "alright": "all right",
    "yeah": "yes",
    "yea": "yes",
    "yep": "yes",
    "yup": "yes",
    "nope": "no",
    "nah": "no",
    "wat": "what",
    "wut": "what",
    "dat": "that",
    "abt": "about",
    "w/": "with",
    "w/o": "without",
    "smth": "something",
    "sth": "something",
    "bday": "birthday",
    "nite": "night",
    "tonite": "tonight",
    "gf": "girlfriend",
    "bf": "boyfriend",
    "fav": "favorite",
    "fave": "favorite",
    "prolly": "probably",
    "srsly": "seriously",
    "jk": "just kidding",
    "idk": "I do not know",
    "imo": "in my opinion",
    "imho": "in my opinion",
    "btw": "by the way",
    "omg": "oh my god",
    "tbh": "to be honest",
    "rly": "really",
}


# Left out on purpose, each has a second reading: "cause" (a noun), "def", "ur" (*your* or *you're*), "till" (a
# cash till), "cos" (the cosine), "k" (a thousand), "dis" (a verb), "bro" (a brother or a friend).
_VARIANT = re.compile(
    r"(?<![\w'/-])(" + "|".join(sorted(map(re.escape, VARIANTS), key=len, reverse=True)) + r")(?![\w'/-])",
    re.IGNORECASE,
)


def variants(text: str) -> str:
    """Informal and function-word variants to one form (:data:`VARIANTS`): ``whilst`` -> ``while``, ``gonna`` ->
    ``going to``, ``u`` -> ``you``, ``ok`` -> ``okay`` … Only the lower-case and the capitalised forms are read: in
    capitals a variant may be a name or an acronym (``U``, ``OK Computer``, ``the IMO rules``) and is left; next to
    a hyphen it is part of a word (``u-turn``)."""

    def replace(match: re.Match) -> str:
        word = match.group(0)
        if word.isupper() and (len(word) > 1 or word == "U"):
            return word
        expansion = VARIANTS[word.lower()]
        return expansion[:1].upper() + expansion[1:] if word[:1].isupper() else expansion

    return _VARIANT.sub(replace, text)


@functools.lru_cache(maxsize=100_000)
def _known(word: str) -> bool:
    from authorguard.text.resources import english_stop_words, wordnet

    return word in english_stop_words() or bool(wordnet().synsets(word))


_STRETCHED = re.compile(r"\b[^\W\d_]*([^\W\d_])\1{2,}[^\W\d_]*\b")


_LAUGH = re.compile(r"\b(?:(?:h[aeiou]){3,}h?|(?:[aeiou]h){3,})\b", re.IGNORECASE)


_RUN = re.compile(r"([^\W\d_])\1{2,}")


@functools.lru_cache(maxsize=100_000)
def _unstretched(word: str) -> str:
    runs = list(_RUN.finditer(word))
    lower = word.lower()
    # try every way of cutting each run to two or one letters; the first known word wins (two letters first)
    for counts in itertools.product((2, 1), repeat=len(runs)):
        pieces, end = [], 0
        for run, count in zip(runs, counts):
            pieces.append(lower[end : run.start()] + run.group(1).lower() * count)
            end = run.end()
        candidate = "".join(pieces) + lower[end:]
        if _known(candidate):
            break
    else:
        candidate = _RUN.sub(lambda m: m.group(1).lower() * 2, lower)
    if word.isupper():
        return candidate.upper()
    return candidate[:1].upper() + candidate[1:] if word[:1].isupper() else candidate


_ROMAN = re.compile(r"^[IVXLCDM]+$")


def elongation(text: str) -> str:
    """Stretched words to their dictionary form: a letter repeated three or more times is cut to two or one,
    whichever gives a word WordNet or the stop-word list knows (``sooo`` -> ``so``, ``goood`` -> ``good``); laughter
    to one form (``hahahaha`` -> ``haha``). A stretched word with no known form keeps two letters per run. Roman
    numerals (``III``) and words of one letter repeated (``AAA``, ``KKK``, ``zzz``: names, grades, sounds) are
    left."""
    text = _LAUGH.sub(lambda m: _match_case("haha", m.group(0)), text)
    return _STRETCHED.sub(
        lambda m: (
            m.group(0) if _ROMAN.match(m.group(0)) or len(set(m.group(0).lower())) == 1 else _unstretched(m.group(0))
        ),
        text,
    )


#: British -> American spellings (a fixed table: a suffix rule would turn ``four`` into ``for``)
SPELLING = dict(
    pair.split(":")
    for pair in [
        "colour:color",
        "colours:colors",
        "coloured:colored",
        "colourful:colorful",
        "favour:favor",
        "favours:favors",
        "favoured:favored",
        "favourite:favorite",
        "favourites:favorites",
        "honour:honor",
        "honours:honors",
        "honoured:honored",
        "humour:humor",
        "labour:labor",
        "neighbour:neighbor",
        "neighbours:neighbors",
        "neighbourhood:neighborhood",
        "behaviour:behavior",
        "behaviours:behaviors",
        "flavour:flavor",
        "flavours:flavors",
        "harbour:harbor",
        "rumour:rumor",
        "rumours:rumors",
        "vapour:vapor",
        "savour:savor",
        "armour:armor",
        "endeavour:endeavor",
        "parlour:parlor",
        "splendour:splendor",
        "vigour:vigor",
        "odour:odor",
        "glamour:glamor",
        "centre:center",
        "centres:centers",
        "centred:centered",
        "theatre:theater",
        "theatres:theaters",
        "metre:meter",
        "metres:meters",
        "litre:liter",
        "litres:liters",
        "fibre:fiber",
        "spectre:specter",
        "sombre:somber",
        "calibre:caliber",
        "realise:realize",
        "realised:realized",
        "realises:realizes",
        "realising:realizing",
        "organise:organize",
        "organised:organized",
        "organising:organizing",
        "organisation:organization",
        "organisations:organizations",
        "recognise:recognize",
        "recognised:recognized",
        "recognising:recognizing",
        "apologise:apologize",
        "apologised:apologized",
        "apologising:apologizing",
        "criticise:criticize",
        "criticised:criticized",
        "emphasise:emphasize",
        "emphasised:emphasized",
        "summarise:summarize",
        "memorise:memorize",
        "prioritise:prioritize",
        "specialise:specialize",
        "specialised:specialized",
        "sympathise:sympathize",
        "utilise:utilize",
        "finalise:finalize",
        "minimise:minimize",
        "maximise:maximize",
        "customise:customize",
        "analyse:analyze",
        "analysed:analyzed",
        "analysing:analyzing",
        "paralyse:paralyze",
        "paralysed:paralyzed",
        "travelled:traveled",
        "travelling:traveling",
        "traveller:traveler",
        "travellers:travelers",
        "cancelled:canceled",
        "cancelling:canceling",
        "labelled:labeled",
        "modelling:modeling",
        "modelled:modeled",
        "fuelled:fueled",
        "counselling:counseling",
        "jewellery:jewelry",
        "marvellous:marvelous",
        "woollen:woolen",
        "defence:defense",
        "offence:offense",
        "licence:license",
        "pretence:pretense",
        "grey:gray",
        "greys:grays",
        "catalogue:catalog",
        "dialogue:dialog",
        "analogue:analog",
        "programme:program",
        "programmes:programs",
        "cheque:check",
        "cheques:checks",
        "tyre:tire",
        "tyres:tires",
        "kerb:curb",
        "plough:plow",
        "sceptical:skeptical",
        "sceptic:skeptic",
        "aluminium:aluminum",
        "aeroplane:airplane",
        "manoeuvre:maneuver",
        "oestrogen:estrogen",
        "paediatric:pediatric",
        "encyclopaedia:encyclopedia",
        "judgement:judgment",
        "acknowledgement:acknowledgment",
        "ageing:aging",
        "enrol:enroll",
        "enrolment:enrollment",
        "fulfil:fulfill",
        "skilful:skillful",
        "wilful:willful",
        "instalment:installment",
        "practise:practice",
        "practised:practiced",
    ]
)


# lower-case words only: a capitalised one may be a name ("the Labour Party", "Earl Grey", "Ministry of Defence")
_SPELLING = re.compile(r"(?<![\w-])(" + "|".join(sorted(SPELLING, key=len, reverse=True)) + r")(?![\w-])")


def spelling(text: str) -> str:
    """British spellings to American ones from the fixed table :data:`SPELLING`, lower-case words only (a
    capitalised word may be part of a name: *the Labour Party*, *Earl Grey*)."""
    return _SPELLING.sub(lambda m: SPELLING[m.group(0)], text)
