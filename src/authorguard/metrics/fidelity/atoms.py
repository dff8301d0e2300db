"""What copy-based rewriting breaks and a reading of content words misses: each finding is a reason the
fidelity meter (:mod:`authorguard.metrics.fidelity`) calls a rewrite ``changed``.

- a **unit, currency or scale detached** from its number ("25 percent" -> "25", "$1" -> "1", "18 million people"
  -> "18 people"); "25 percent" / "25%" and "$5" / "5 dollars" are the same;
- a **decade read as a year** ("the 1970s" -> "1970");
- an **abbreviation broken** ("U.S." -> "U.");
- a **quotation altered or unmarked**: the words inside the input's quotation marks not found inside marks in the
  output (found without them: unmarked);
- a **loop**: a word written twice in a row, two determiners in a row ("the this"), or a phrase of two to four
  words said twice in a row, that the input does not have;
- a **list or apposition run together**: two neighbouring items of an input series ("money, power, connections") or
  an apposition ("Munk, the founder") written side by side without their comma.

Plain text only (regular expressions, no parse): thousands of words a second. The meter passes both texts through
the normaliser first (curly quotes are straight, "I'm" is "I am", asides lose their brackets on both sides).
"""

from __future__ import annotations

import re
from collections import Counter

from authorguard.text.atoms import UNITS, quotations

# a number as written, with a currency before it and what stands right after it (a unit word, %, a scale)
_CURRENCY = r"(?:[A-Z]{0,2}\$|£|€|¥)"
_NUMBER = re.compile(rf"(?<![\w.])({_CURRENCY})?\s?(\d[\d,]*(?:\.\d+)?)(s\b|%|(?:\s?(?:-\s?)?[A-Za-z]+){{0,2}})?")
_INITIALS = re.compile(r"(?<![\w.])((?:[A-Z]\.){2,})")
_WORD = re.compile(r"[A-Za-z0-9']+")
_ARTICLES = frozenset({"a", "an", "the"})
_DETERMINERS = _ARTICLES | frozenset({"this", "these", "those"})  # "that" is a conjunction as often ("is that the")


def _figures(text: str) -> Counter:
    """(number, unit) pairs of ``text``: each number with its currency and the unit words after it."""
    out: Counter = Counter()
    for match in _NUMBER.finditer(text.replace("\u2019", "'")):
        currency, digits, after = match.group(1), match.group(2).replace(",", ""), (match.group(3) or "")
        units = set()
        if currency:
            units.add("$" if "$" in currency else currency)
        if after.strip() == "s":
            units.add("decade")
        for word in re.findall(r"[A-Za-z]+|%", after.lower()):
            if word in UNITS:
                units.add(UNITS[word])
        out[(digits.rstrip("."), frozenset(units))] += 1
    return out


def has_figures(text: str) -> bool:
    """Whether ``text`` says a number with a unit, currency, scale or decade."""
    return any(units for _, units in _figures(text))


def unit_findings(source: str, output: str) -> list[str]:
    """A number of the input that the output still says, but without a unit, currency or scale it had."""
    said, wrote = _figures(source), _figures(output)
    findings = []
    for (number, units), _ in said.items():
        if not units or any(n == number and units <= u for n, u in wrote):
            continue
        kept = [u for n, u in wrote if n == number]
        if not kept:
            continue  # the number itself is gone: the meter's number check says so
        lost = sorted(units - set().union(*kept))
        if "decade" in lost:
            findings.append(f"a decade read as a year: {number}s -> {number}")
        elif lost:
            findings.append(f"unit detached from {number}: {', '.join(lost)} lost")
    return findings


def _words(text: str) -> list[str]:
    return _WORD.findall(text.replace("\u2019", "'").replace("\u2018", "'").lower())


def _normal(text: str) -> str:
    return " ".join(_words(text))


def quotation_findings(source: str, output: str) -> list[str]:
    """A quotation of the input whose words are not inside quotation marks in the output."""
    quoted_out = {_normal(q) for q in quotations(output)}
    plain_out = _normal(output)
    findings = []
    for quote in quotations(source):
        words = _normal(quote)
        if not words or any(words == q or words in q for q in quoted_out):
            continue
        if f" {words} " in f" {plain_out} ":
            findings.append(f"quotation unmarked: \u201c{_short(quote)}\u201d")
        else:
            findings.append(f"quotation altered: \u201c{_short(quote)}\u201d")
    return findings


def _short(text: str, words: int = 8) -> str:
    parts = text.split()
    return " ".join(parts[:words]) + (" \u2026" if len(parts) > words else "")


def abbreviation_findings(source: str, output: str) -> list[str]:
    """An abbreviation of the input ("U.S.") that the output writes cut short ("U."), not whole, undotted or
    spelt out."""
    findings = []
    for initials in set(_INITIALS.findall(source)):
        if initials in output or initials.replace(".", "") in output:
            continue
        cut = initials[:2]
        if re.search(rf"(?<![\w.]){re.escape(cut)}(?![A-Za-z]\.)", output):
            findings.append(f"abbreviation broken: {initials} -> {cut}")
    return findings


def loop_findings(source: str, output: str) -> list[str]:
    """Words or determiners doubled, or a phrase of 2-4 words said twice in a row, that the input does not have (a
    ``[name]``, ``[word]`` or ``[words]`` marker stands for what was removed: two in a row are two things)."""
    markers = iter(range(10**9))  # each marker its own word: "and [word] and [word]" repeats nothing
    words = _words(re.sub(r"\[(?:name|words?)\]", lambda _: f" withheld{next(markers)} ", output))
    source_text = f" {_normal(source)} "
    findings = []
    for a, b in zip(words, words[1:]):
        pair = f" {a} {b} "
        # "had had", "that that" are English; "the this", "a a", "the the" are not
        if (a == b and a not in ("had", "that") or a in _DETERMINERS and b in _DETERMINERS) and pair not in source_text:
            findings.append(f"a loop: \u201c{a} {b}\u201d")
            break
    # a phrase said twice in a row ("the this of the this"): a phrase repeated further apart is often the text's own
    for size in (2, 3, 4):
        for i in range(len(words) - 2 * size + 1):
            phrase = " ".join(words[i : i + size])
            if words[i : i + size] == words[i + size : i + 2 * size] and f" {phrase} {phrase} " not in source_text:
                findings.append(f"a phrase repeated: \u201c{phrase} {phrase}\u201d")
                return findings
    return findings


_PIECE = re.compile(r"\w(?:[\w'$%.-]*\w)?|[,;:()\[\]]")  # a word starts with a letter or digit: linear
_BREAKS = frozenset(",;:()[]")


def _adjacent(text: str) -> set[tuple[str, str]]:
    """Pairs of neighbouring words of ``text`` with no punctuation between them (articles skipped), lower case."""
    pieces = [p.lower() for p in _PIECE.findall(text) if p.lower() not in _ARTICLES]
    return {(a, b) for a, b in zip(pieces, pieces[1:]) if a not in _BREAKS and b not in _BREAKS}


def _series_item(pieces: list[str], start: int, end: int) -> bool:
    """Whether ``pieces[start:end]`` is an item of a series: one to three words, none a function word but "and" /
    "or" ("money", "NDW 2", "Border Patrol agents")."""
    from authorguard.text.resources import english_stop_words

    words = pieces[start:end]
    return 0 < len(words) <= 3 and all(w not in english_stop_words() or w in ("and", "or") for w in words)


def list_findings(source: str, output: str) -> list[str]:
    """An item of an input series ("money, power, connections") or an apposition after a name ("Munk, the
    founder") run into its neighbour in the output, its comma gone ("money power", "Munk founder"). Dropping the
    comma before "and" / "or" is not one (a serial comma)."""
    raw = _PIECE.findall(source)
    pieces = [p.lower() for p in raw]
    joined = _adjacent(output) - _adjacent(source)
    commas = [i for i, p in enumerate(pieces) if p == ","]
    for number, i in enumerate(commas):
        if i == 0 or i + 1 >= len(pieces) or pieces[i + 1] in ("and", "or"):
            continue
        right = i + 1
        apposition = pieces[right] in _ARTICLES and raw[i - 1][:1].isupper()
        if apposition:
            right += 1
        neighbours = commas[max(number - 1, 0) : number] + commas[number + 1 : number + 2]
        series = any(_series_item(pieces, min(i, j) + 1, max(i, j)) and abs(j - i) <= 4 for j in neighbours)
        if right < len(pieces) and (apposition or series) and (pieces[i - 1], pieces[right]) in joined:
            kind = "an apposition" if apposition else "a list"
            return [f"{kind} run together: \u201c{pieces[i - 1]} {pieces[right]}\u201d"]
    return []


# a bracketed span inside a sentence, holding a letter: a gloss, an aside, a citation ("(model)", "(pg 327)")
_ASIDE = re.compile(r"[(\[]([^()\[\]\n]*[A-Za-z][^()\[\]\n]*)[)\]]")
_BRACKETED = re.compile(r"[(\[]([^()\[\]\n]+)[)\]]")


def bracket_findings(source: str, output: str) -> list[str]:
    """An aside the input brackets that the output writes without its brackets: it now runs into the sentence as
    if the sentence said it (a loss — the words are there — not a change). An aside the output still brackets in
    part ("(Tacitus, 98)" -> "Tacitus (98) put it") is kept."""
    plain_out = f" {_normal(output)} "
    bracketed_out = set(" ".join(_normal(m.group(1)) for m in _BRACKETED.finditer(output)).split())
    findings = []
    for match in _ASIDE.finditer(source):
        words = _normal(match.group(1))
        if words and not bracketed_out & set(words.split()) and f" {words} " in plain_out:
            findings.append(f"brackets lost: ({_short(match.group(1).strip(), 6)})")
    return findings


def atom_findings(source: str, output: str) -> list[str]:
    """Every finding of this module for one (input, output) pair, in a fixed order."""
    return [
        *unit_findings(source, output),
        *quotation_findings(source, output),
        *abbreviation_findings(source, output),
        *loop_findings(source, output),
        *list_findings(source, output),
    ]
