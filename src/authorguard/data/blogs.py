"""Blog Authorship Corpus (Schler et al., 2006): a whole-blogger sample with gender, age and industry.

The full corpus has 19,320 bloggers and 681,288 posts; authorguard reads the seeded, stratified whole-blogger
sample documented in ``shared/data/blogs/MANIFEST.md`` (2,388 bloggers, 113,253 posts, the 21 most prolific
bloggers forced in, gender x age proportions kept). One document per post. Bloggers whose posts are the same
texts as another blogger's (e.g. 1093457 and 1093691 among the most prolific) are the same writing under two
ids: only the smallest id is kept, and what was dropped is counted in ``corpus.metadata`` (an attribution
experiment must never see one author's text under two labels). Posts whose text is empty are left out and
counted the same way.

Columns: ``authors`` = blogger id; ``labels`` = industry (the topic TAROT uses as utility, a per-author label);
attributes ``gender``, ``age``, ``age_group`` (13-17, 23-27, 33-48), ``topic`` (= industry), ``sign``, ``date``.
``splits`` is ``"all"``: scenarios split by author or by document themselves.

The sample is derived data with no public download of its own: online users rebuild it from the full corpus
(upstream page below) with the procedure in the MANIFEST, or place ``blogs_sample.jsonl.gz`` under
``$AUTHORGUARD_DATA/blogs/``; it is checked against its sha256.

References
----------
.. [SKAP06] Schler, Koppel, Argamon, Pennebaker, "Effects of Age and Gender on Blogging", AAAI Spring Symposium
   on Computational Approaches for Analyzing Weblogs, 2006. https://u.cs.biu.ac.il/~koppel/BlogCorpus.htm
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter

from authorguard.data.corpus import Corpus
from authorguard.data.download import RemoteFile, locate
from authorguard.data.io import read_gzip_jsonl
from authorguard.exceptions import InputError

UPSTREAM = "https://u.cs.biu.ac.il/~koppel/BlogCorpus.htm"
SAMPLE = RemoteFile(
    "blogs", "blogs_sample.jsonl.gz", UPSTREAM, ("7bbc77ea0e7a54de77adf96ad806ae839f5c4721e41a24d52c1aacb65b83eafc",)
)
AGE_GROUPS = ((13, 17), (23, 27), (33, 48))
_FIELDS = ("id", "gender", "age", "topic", "sign", "date", "post_index", "text")


def age_group(age: int) -> str:
    """'13-17', '23-27' or '33-48' (the corpus has no other ages)."""
    for low, high in AGE_GROUPS:
        if low <= age <= high:
            return f"{low}-{high}"
    raise InputError(f"age {age} is outside the corpus's age groups {AGE_GROUPS}")


def duplicate_bloggers(records: list[dict]) -> dict[str, str]:
    """Blogger id -> the smallest id whose posts are the same texts in the same order, for every blogger that
    repeats another (same file content, or the same posts in a file that differs otherwise, as 1093457 and
    1093691 do)."""
    posts: dict[str, list[str]] = {}
    for record in records:
        posts.setdefault(str(record["id"]), []).append(record["text"])
    first_by_content: dict[str, str] = {}
    duplicates: dict[str, str] = {}
    for blogger in sorted(posts, key=int):
        content = hashlib.sha256("\x00".join(posts[blogger]).encode("utf-8")).hexdigest()
        first = first_by_content.setdefault(content, blogger)
        if first != blogger:
            duplicates[blogger] = first
    return duplicates


def load_blogs(*, data_dir: str | os.PathLike | None = None, download: bool = False, verify: bool = True) -> Corpus:
    """The blog sample as a :class:`Corpus` of posts (deduplicated bloggers, empty posts left out and counted)."""
    sample_path = locate(SAMPLE, data_dir=data_dir, download=download, verify=verify)
    records = read_gzip_jsonl(sample_path, _FIELDS)
    duplicates = duplicate_bloggers(records)
    kept = [r for r in records if str(r["id"]) not in duplicates and r["text"].strip()]
    empty = sum(1 for r in records if str(r["id"]) not in duplicates and not r["text"].strip())
    dropped = Counter(str(r["id"]) for r in records if str(r["id"]) in duplicates)
    return Corpus(
        ids=tuple(f"{r['id']}-{r['post_index']}" for r in kept),
        texts=tuple(r["text"] for r in kept),
        authors=tuple(str(r["id"]) for r in kept),
        labels=tuple(r["topic"] for r in kept),
        name="blogs",
        metadata={
            "source": str(sample_path),
            "duplicate_bloggers": duplicates,
            "bloggers_dropped_as_duplicates": len(duplicates),
            "posts_of_duplicate_bloggers": sum(dropped.values()),
            "empty_posts": empty,
        },
        attributes={
            "gender": [r["gender"] for r in kept],
            "age": [str(r["age"]) for r in kept],
            "age_group": [age_group(int(r["age"])) for r in kept],
            "topic": [r["topic"] for r in kept],
            "sign": [r["sign"] for r in kept],
            "date": [r["date"] for r in kept],
        },
    )
