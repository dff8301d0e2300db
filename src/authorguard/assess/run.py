"""The assessment: read, profile, plan, measure with the experiment harness (resumable), recommend, report."""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from authorguard.assess.plan import (
    ATTACKERS,
    CANDIDATES,
    OVERHEAD_SECONDS,
    THREAT_MODELS,
    Candidate,
    Plan,
    plan_assessment,
)
from authorguard.assess.profile import profile_corpus, usable_mask
from authorguard.assess.recommend import (
    DEFAULT_MIN_UTILITY,
    content_floors,
    front,
    gate_refusals,
    recommend,
    risk_headline,
    setting_results,
    unmeasured_utility,
)
from authorguard.data.io import atomic_write, read_records, write_json
from authorguard.exceptions import InputError
from authorguard.metrics.statistics import wilson_interval
from authorguard.utils.validation import check_number

if TYPE_CHECKING:  # the experiment harness is imported inside the functions
    from authorguard.experiments.config import ExperimentConfig

ASSESSMENT_JSON = "assessment.json"
# 3: utility may be null; headline, left_out, not_recommended, cells_computed; 4: floors; 5: faithful, changed;
# 6: unsure (the fidelity meter's fourth verdict); 7: author_release (the author-level DP release, labelled tasks)
SCHEMA_VERSION = 7


@dataclass(frozen=True)
class AssessOptions:
    """What ``authorguard assess`` was asked: the fields, the budget, the utility floor, the seed."""

    author_field: str
    label_field: str | None = None
    text_field: str = "text"
    id_field: str | None = None
    budget_minutes: float = 20.0
    min_utility: float = DEFAULT_MIN_UTILITY
    test_share: float = 0.3
    max_authors: int = 50
    seed: int = 0

    def __post_init__(self) -> None:
        check_number(self.budget_minutes, "budget_minutes", "assess", low=1.0, closed="left")
        check_number(self.min_utility, "min_utility", "assess", low=0.0, high=1.0, closed="both")
        check_number(self.test_share, "test_share", "assess", low=0.0, high=0.5, closed="right")
        check_number(self.max_authors, "max_authors", "assess", kind=int, low=2, closed="left")
        check_number(self.seed, "seed", "assess", kind=int, low=0, closed="left")


def split_within_authors(authors: np.ndarray, test_share: float, seed: int) -> np.ndarray:
    """ "train" / "test" per document: a share of each author's documents (at least one) is test, at least two train."""
    rng = np.random.default_rng(seed)
    splits = np.full(len(authors), "train", dtype=object)
    for author in sorted(set(authors.tolist()), key=str):
        members = np.flatnonzero(authors == author)
        n_test = min(max(1, int(round(test_share * len(members)))), len(members) - 2)
        splits[rng.choice(members, n_test, replace=False)] = "test"
    return splits


def _experiment_config(
    corpus_path: Path, options: AssessOptions, methods: list[Candidate], attackers: list[str], n_authors: int
) -> dict:
    method_entries: list[dict[str, Any]] = [{"name": "original", "label": "original"}]
    for candidate in methods:
        params = dict(candidate.params)
        if candidate.method == "syntf":
            params.setdefault("vocabulary", "embeddings")  # public vocabulary, as anonymize releases it
        method_entries.append({"name": candidate.method, "params": params, "label": candidate.name})
    return {
        "name": "assess",
        "dataset": "records",
        "dataset_options": {
            "path": str(corpus_path),
            "text_field": "text",
            "id_field": "id",
            "author_field": "author",
            "label_field": "label",
            "split_field": "split",
        },
        "scenarios": [f"Top{n_authors}-Any"],
        "min_test_documents": 1,
        "tasks": ["topic"] if options.label_field else [],
        "attackers": list(attackers),
        "threat_models": list(THREAT_MODELS),
        "classifiers": ["svm"],
        "runs": 1,
        "seed": options.seed,
        "split_seed": options.seed,
        "content_metrics": True,
        "content_sample": 300,
        "detector": True,
        "detectors": ["char-ngrams"],
        "n_jobs": 1,
        "methods": method_entries,
    }


def _measure(
    configure: Callable[[list[Candidate]], ExperimentConfig],
    plan: Plan,
    run_dir: Path,
    deadline: float,
    clock: Callable[[], float],
    **run_options,
):
    """Measure the unprotected text, then each planned method in turn, with the experiment harness.

    A method whose cell is not stored yet starts only when its estimate (``plan.cell_estimates``, seconds) fits
    the time left before ``deadline`` (seconds on ``clock``); a stored cell is always reused. Returns (the results
    of what was measured, the methods measured, those not started with the reason, the cells computed)."""
    from authorguard.experiments.runner import plan_cells, run_experiment

    measured: list[Candidate] = []
    not_started: dict[str, str] = {}
    computed = 0
    for candidate in [None, *plan.methods]:  # None: the unprotected text alone, always measured
        config = configure(measured if candidate is None else [candidate])
        todo = [cell for cell in plan_cells(config) if not (run_dir / "cells" / f"{cell.key}.json").exists()]
        if candidate is not None and todo:
            estimate, left = plan.cell_estimates[candidate.name], deadline - clock()
            if estimate > left:
                not_started[candidate.name] = (
                    f"not started (budget): its cell, estimated at {estimate:.0f} s, did not fit the "
                    f"{max(left, 0.0):.0f} s "
                    "left; the same command again measures it (finished cells are reused)"
                )
                continue
        run_experiment(config, run_dir, resume=True, **run_options)
        computed += len(todo)
        if candidate is not None:
            measured.append(candidate)
    frame = run_experiment(configure(measured), run_dir, resume=True, **run_options)  # every cell stored: reads them
    return frame, measured, not_started, computed


@dataclass(frozen=True)
class UsableCorpus:
    """The input's documents an assessment can use: ``texts[i]`` by ``authors[i]`` (object array), labelled
    ``labels[i]`` (None without a task), with id ``ids[i]``; ``profile`` describes the whole input."""

    ids: list
    texts: list[str]
    authors: np.ndarray
    labels: list | None
    profile: Any


def usable_corpus(input: str | os.PathLike, options: AssessOptions) -> UsableCorpus:
    """Read INPUT, profile it (refusing one that cannot be measured) and keep the documents that can be used: long
    enough, by an author with enough of them, labelled when there is a task."""
    extra = (options.author_field,) + ((options.label_field,) if options.label_field else ())
    if options.label_field == options.author_field:
        raise InputError("--label-field and --author-field name the same field")
    records = read_records(
        input,
        text_field=options.text_field,
        id_field=options.id_field or "id",
        extra_fields=extra,
        require_id=options.id_field is not None,
    )
    authors = records.fields[options.author_field]
    labels = records.fields[options.label_field] if options.label_field else None
    profile = profile_corpus(records.texts, authors, labels)
    profile.check_measurable()
    usable = np.flatnonzero(usable_mask(records.texts, authors))
    if labels is not None:
        usable = usable[[labels[i] is not None for i in usable]]
    return UsableCorpus(
        ids=[records.ids[i] for i in usable],
        texts=[records.texts[i] for i in usable],
        authors=np.array([authors[i] for i in usable], dtype=object),
        labels=None if labels is None else [labels[i] for i in usable],
        profile=profile,
    )


def write_work_corpus(corpus: UsableCorpus, plan: Plan, options: AssessOptions, work: Path) -> tuple[list, Path]:
    """The plan's documents with their train/test split, as rows, written once to WORK under a name from their
    content (another input never reuses a cell); returns (rows, path)."""
    chosen = np.array(plan.documents, dtype=int)
    splits = split_within_authors(corpus.authors[chosen], options.test_share, options.seed)
    rows = [
        {
            "id": str(corpus.ids[i]),
            "text": corpus.texts[i],
            "author": str(corpus.authors[i]),
            "label": None if corpus.labels is None else corpus.labels[i],
            "split": split,
        }
        for i, split in zip(chosen, splits)
    ]
    payload = "".join(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n" for row in rows)
    digest = hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]
    corpus_path = work / f"corpus-{digest}.jsonl"
    work.mkdir(parents=True, exist_ok=True)
    if not corpus_path.exists():
        with atomic_write(corpus_path) as handle:
            handle.write(payload)
    return rows, corpus_path


def run_assessment(
    input: str | os.PathLike,
    output_dir: str | os.PathLike,
    options: AssessOptions,
    *,
    show_progress: bool | str = False,
    command: list[str] | None = None,
    log=print,
    candidates: tuple[Candidate, ...] = CANDIDATES,
    attackers: tuple[tuple[str, float], ...] = ATTACKERS,
    clock: Callable[[], float] = time.monotonic,
) -> dict:
    """Assess ``input``; writes ``output_dir``/assessment.json, report.md and report.html and returns the assessment.

    ``candidates`` / ``attackers``: the method settings and attackers to consider (default: the built-in set).
    ``clock``: seconds, for the budget (a cell that would not fit the time left is not started).
    A second run with the same input and options reuses every finished cell (``output_dir``/work); so does one that
    changes only ``min_utility``, which changes the recommendation, not a measurement."""
    from authorguard.experiments.config import config_from_dict

    started = clock()
    output = Path(output_dir)
    corpus = usable_corpus(input, options)
    budget = max(0.0, options.budget_minutes * 60 - OVERHEAD_SECONDS)
    plan = plan_assessment(
        corpus.authors,
        [len(t.split()) for t in corpus.texts],
        budget,
        labelled=corpus.labels is not None,
        seed=options.seed,
        max_authors=options.max_authors,
        candidates=candidates,
        attackers=attackers,
    )
    log(
        f"assessing {len(plan.documents)} of {corpus.profile.documents} documents ({plan.authors} authors), "
        f"{len(plan.methods)} methods x {len(plan.attackers)} attackers x {len(THREAT_MODELS)} threat models; "
        f"estimated {plan.estimated_seconds / 60:.0f} min"
    )
    rows, corpus_path = write_work_corpus(corpus, plan, options, output / "work")

    def configure(methods: list[Candidate]) -> ExperimentConfig:
        return config_from_dict(
            _experiment_config(corpus_path, options, methods, plan.attackers, plan.authors), "assess"
        )

    frame, measured, not_started, computed = _measure(
        configure,
        plan,
        output / "work" / "run",
        started + budget,
        clock,
        show_progress=show_progress,
        command=command if command is not None else sys.argv,
    )
    findings = _findings(frame, rows, corpus, plan, not_started, candidates, options, log)
    assessment = {
        "schema": SCHEMA_VERSION,
        "input": str(input),
        "options": asdict(options),
        "profile": corpus.profile.to_dict(),
        "plan": plan.to_dict(),
        **{key: findings.pop(key) for key in ("split", "chance", "headline", "audit")},
        "measured": [m.name for m in measured],
        **findings,
        "seconds": round(clock() - started, 1),
        "cells_computed": computed,
        "cells_seconds": round(float(frame.groupby(["method", "params"])["cell_seconds"].max().sum()), 1),
    }
    write_json(output / ASSESSMENT_JSON, assessment)
    from authorguard.assess.report import write_report

    write_report(assessment, output)
    return assessment


def _findings(frame, rows: list, corpus: UsableCorpus, plan: Plan, not_started: dict, candidates, options, log):
    """What the measured cells say: the split, chance, the risk audit, each setting's results, the front, the floors
    and the recommendation (with the author-level DP release as a candidate of its own on a labelled task)."""
    labelled = corpus.labels is not None
    test_labels = [row["label"] for row in rows if row["split"] == "test"] if labelled else []
    majority = Counter(test_labels).most_common(1)[0][1] / len(test_labels) if test_labels else None
    results = setting_results(frame, labelled=labelled, majority=majority)
    test_authors = [row["author"] for row in rows if row["split"] == "test"]
    chance = Counter(test_authors).most_common(1)[0][1] / len(test_authors)
    method_names = {c.name for c in candidates}
    recommendation = recommend(
        results,
        options.min_utility,
        chance,
        {name: reason for name, reason in {**plan.left_out, **not_started}.items() if name in method_names},
    )
    author_release = None
    if corpus.labels is not None:
        from authorguard.assess.author_release import evaluate_author_release, with_author_release

        log("measuring the author-level DP release (authorguard synth) on every usable document")
        author_release = evaluate_author_release(corpus.texts, corpus.authors, corpus.labels, seed=options.seed)
        recommendation = with_author_release(recommendation, author_release, options.min_utility)
    reference = next(r for r in results if r.is_reference)
    audit = {
        attacker: {"accuracy": values["static"], "interval": list(wilson_interval(values["static"], reference.n_test))}
        for attacker, values in reference.by_attack.items()
    }
    return {
        "split": {"train": len(rows) - len(test_authors), "test": len(test_authors)},
        "chance": chance,
        "headline": risk_headline(reference, chance),
        "audit": audit,
        "left_out": {**plan.left_out, **not_started, **unmeasured_utility(results)},
        "not_recommended": gate_refusals(results),
        "task_accuracy": reference.task_accuracy,
        "task_majority": majority,
        "results": [r.to_dict() for r in results],
        "front": front(results),
        "recommendation": recommendation.to_dict(),
        "floors": content_floors(results, chance),
        "author_release": author_release,
    }


def read_assessment(path: str | os.PathLike) -> dict:
    """An ``assessment.json`` (or the folder holding it), checked against the schema version."""
    path = Path(path)
    if path.is_dir():
        path = path / ASSESSMENT_JSON
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise InputError(f"{path}: not a readable assessment ({type(error).__name__})") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA_VERSION:
        raise InputError(
            f"{path}: assessment schema {data.get('schema') if isinstance(data, dict) else None!r} is not "
            f"{SCHEMA_VERSION}"
        )
    return data


def assess(
    records: str | os.PathLike | Iterable[Mapping[str, Any]],
    *,
    author_field: str = "author",
    output_dir: str | os.PathLike,
    label_field: str | None = None,
    text_field: str = "text",
    id_field: str | None = None,
    budget_minutes: float = 20.0,
    min_utility: float = 0.8,
    max_authors: int = 50,
    seed: int = 0,
    methods: Sequence[str] | None = None,
    attackers: Sequence[str] | None = None,
    log: Callable[[str], object] | None = None,
    show_progress: bool | str = False,
    command: Sequence[str] = (),
) -> dict:
    """Audit how identifiable the authors of ``records`` are and which method protects them at what cost — the
    Python side of ``authorguard assess`` (``authorguard.assess(...)`` calls this). Writes ``output_dir``/report.html,
    report.md and assessment.json and
    returns the assessment (a dict: ``headline``, ``audit`` per attacker, ``results`` per method,
    ``recommendation``).

    ``records``: a JSONL/CSV/Parquet file, or dicts with ``text_field`` and ``author_field``; ``label_field``: the
    task the data is shared for (its accuracy is the utility; otherwise meaning kept is); ``budget_minutes``: time
    the measurements may take; ``methods`` / ``attackers``: a subset of the built-in settings by label or method name
    (``authorguard.assess.plan.CANDIDATES``, ``ATTACKERS``; default: all that fit the budget). ``log``: called with each
    progress line (default: printed on stderr); ``show_progress``: True or "bar" for progress bars, "lines" for a line
    per
    finished cell on stderr; ``command``: the command line the report
    records (none from Python).

    ```pycon
    >>> import authorguard, tempfile
    >>> papers = authorguard.load_dataset("federalist").split("train")   # the undisputed Federalist papers
    >>> records = [{"text": t, "author": a} for t, a in zip(papers.texts, papers.authors)]
    >>> audit = authorguard.assess(records, output_dir=tempfile.mkdtemp(), budget_minutes=2, methods=["normalise"],
    ...                            attackers=["function-words"], log=lambda line: None)
    >>> sorted(audit["audit"])
    ['function-words']
    >>> [r["method"] for r in audit["results"]]
    ['original', 'normalise']
    >>> audit["headline"]  # doctest: +ELLIPSIS
    'The strongest attack names the author of ...'

    ```
    """
    options = AssessOptions(
        author_field=author_field,
        label_field=label_field,
        text_field=text_field,
        id_field=id_field,
        budget_minutes=budget_minutes,
        min_utility=min_utility,
        max_authors=max_authors,
        seed=seed,
    )
    candidates = (
        CANDIDATES if methods is None else _chosen(CANDIDATES, methods, lambda c: (c.label, c.method), "method")
    )
    chosen_attackers = ATTACKERS if attackers is None else _chosen(ATTACKERS, attackers, lambda a: (a[0],), "attacker")
    output = Path(output_dir)
    return run_assessment(
        _records_file(records, output),
        output,
        options,
        candidates=candidates,
        attackers=chosen_attackers,
        log=log or (lambda line: print(line, file=sys.stderr)),
        show_progress=show_progress,
        command=list(command),
    )


def _records_file(records: str | os.PathLike | Iterable[Mapping[str, Any]], output: Path) -> Path:
    """The file RECORDS are in: a path as given; records given in Python are written beside the report (as
    records.jsonl), so the audit can be rerun from the command line."""
    if isinstance(records, (str, os.PathLike)):
        return Path(records)
    path = output / "records.jsonl"
    output.mkdir(parents=True, exist_ok=True)
    with atomic_write(path) as handle:
        for row in records:
            handle.write(json.dumps(dict(row), ensure_ascii=False, default=str) + "\n")
    return path


def _chosen(available: tuple, names: Sequence[str], keys: Callable[[Any], tuple], what: str) -> tuple:
    """The members of ``available`` that one of ``names`` names (by any of ``keys(member)``), in their order."""
    wanted = set(names)
    chosen = tuple(member for member in available if wanted & set(keys(member)))
    unknown = wanted - {key for member in available for key in keys(member)}
    if unknown:
        known = sorted({keys(member)[0] for member in available})
        raise InputError(f"assess: unknown {what}(s) {', '.join(sorted(unknown))} (known: {', '.join(known)})")
    return chosen
