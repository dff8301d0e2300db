"""The ``authorguard`` command line, end to end on real messages."""

from __future__ import annotations

import csv
import json
import re

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from authorguard.cli.app import app
from authorguard.methods.output import load_counts_npz
from tests import reference
from tests.conftest import SMALL_WORDS

runner = CliRunner()
BOUND_KEYS = ["standard_epsilon", "improved_epsilon", "tight_epsilon", "loss_per_word"]


@pytest.fixture(scope="module")
def rows(newsgroups_sample):
    # plus one record whose id and words are not ASCII (written unescaped, as json.dumps(ensure_ascii=False))
    return [{"id": f"msg-{i}", "text": t} for i, t in enumerate(newsgroups_sample.texts[:25])] + [
        {"id": 'née-"1"', "text": 'Le café: résumé, déjà vu, naïve façade, Zürich "quoted" fiancée.'}
    ]


def _write_input(path, rows):
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    elif path.suffix == ".csv":
        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=["id", "text"])
            writer.writeheader()
            writer.writerows(rows)
    else:
        pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def _run(*args):
    return runner.invoke(app, [str(a) for a in args])


def _said(stderr: str) -> list[str]:
    """What a command said on stderr, less the one-line-per-stage progress it prints when not on a terminal."""
    return [line for line in stderr.strip().splitlines() if not re.match(r"^(syntf|obfuscate|demo): ", line)]


@pytest.mark.parametrize(
    ("source", "target"), [(".jsonl", ".jsonl"), (".csv", ".npz"), (".parquet", ".jsonl"), (".jsonl", ".npz")]
)
def test_syntf_round_trip_every_format(tmp_path, rows, source, target):
    infile = _write_input(tmp_path / f"in{source}", rows)
    outfile = tmp_path / f"out{target}"
    result = _run("syntf", infile, "-o", outfile, "--epsilon", 40, "--n-words", 30, "--seed", 1, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert list(report)[:4] == BOUND_KEYS
    saved = json.loads((tmp_path / "out.privacy.json").read_text())
    assert saved["tight_epsilon"] == report["tight_epsilon"] and saved["n_words"] == 30
    if target == ".jsonl":
        lines = [json.loads(line) for line in outfile.read_text(encoding="utf-8").splitlines()]
        assert [line["id"] for line in lines] == [r["id"] for r in rows]  # one line per record, input order
        assert all(sum(line["counts"].values()) == 30 for line in lines)
        # each line is exactly json.dumps of its record, words by decreasing count
        assert outfile.read_text(encoding="utf-8").splitlines() == [
            json.dumps(line, ensure_ascii=False) for line in lines
        ]
        assert all(list(line["counts"].values()) == sorted(line["counts"].values(), reverse=True) for line in lines)
    else:
        matrix, vocabulary, ids = load_counts_npz(outfile)
        assert ids == [r["id"] for r in rows] and matrix.shape == (len(rows), len(vocabulary))
        np.testing.assert_array_equal(np.asarray(matrix.sum(axis=1)).ravel(), 30)


def test_syntf_same_seed_same_bytes_and_positions_as_ids(tmp_path, rows):
    infile = _write_input(tmp_path / "in.jsonl", [{"text": r["text"]} for r in rows])
    for name in ("a", "b"):
        assert _run("syntf", infile, "-o", tmp_path / f"{name}.jsonl", "--n-words", 10, "--seed", 5).exit_code == 0
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    first = json.loads((tmp_path / "a.jsonl").read_text().splitlines()[0])
    assert first["id"] == 0


def test_syntf_with_public_vocabulary_file(tmp_path, rows):
    infile = _write_input(tmp_path / "in.jsonl", rows)
    words = tmp_path / "words.txt"
    words.write_text("\n".join(SMALL_WORDS) + "\n", encoding="utf-8")
    result = _run("syntf", infile, "-o", tmp_path / "out.npz", "--vocabulary", words, "--n-words", 10, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "out.privacy.json").read_text())["vocabulary_source"] == "public"
    _, vocabulary, _ = load_counts_npz(tmp_path / "out.npz")
    assert set(vocabulary) <= set(SMALL_WORDS) | {"cat", "run"}


def test_privacy_syntf_with_vocab_size():
    result = _run("privacy", "syntf", "--epsilon", 47.5, "--n-words", 150, "--vocab-size", 30000, "--json")
    assert result.exit_code == 0, result.output
    values = json.loads(result.stdout)
    assert list(values) == BOUND_KEYS
    assert values["standard_epsilon"] == 7125.0 and values["tight_epsilon"] is None


def test_privacy_syntf_with_embeddings_is_exact(tmp_path, small_vectors):
    path = tmp_path / "small.txt"
    path.write_text(
        "".join(f"{w} {' '.join(f'{x:.6g}' for x in v)}\n" for w, v in zip(small_vectors.words, small_vectors.vectors))
    )
    result = _run(
        "privacy", "syntf", "--epsilon", 20, "--n-words", 10, "--embeddings", path, "--bigram-weight", 0.3, "--json"
    )
    assert result.exit_code == 0, result.output
    values = json.loads(result.stdout)
    words = list(small_vectors.words)
    pi = reference.mechanism_matrix(words, small_vectors.vectors, 20.0, 0.3)
    assert values["loss_per_word"] == pytest.approx(reference.tight_loss(pi), abs=1e-3)
    assert values["tight_epsilon"] == pytest.approx(10 * values["loss_per_word"])
    solved = _run(
        "privacy",
        "epsilon-for-loss",
        "--target-loss",
        values["loss_per_word"],
        "--embeddings",
        path,
        "--bigram-weight",
        0.3,
        "--json",
    )
    assert solved.exit_code == 0, solved.output
    assert json.loads(solved.stdout)["epsilon"] == pytest.approx(20.0, abs=0.01)


def test_privacy_dp_prompt_gives_the_budget_or_the_temperature_for_one():
    result = _run(
        "privacy", "dp-prompt", "--clip", -8, 0, "--relative", "--max-tokens", 128, "--epsilon", 10000, "--json"
    )
    assert result.exit_code == 0, result.output
    values = json.loads(result.stdout)
    assert values["temperature"] == pytest.approx(2 * 8 * 128 / 10000) and values["relative"] is True
    assert values["token_epsilon"] * 128 == pytest.approx(10000)
    raw = json.loads(
        _run("privacy", "dp-prompt", "--clip", 10, 25, "--max-tokens", 64, "--temperature", 0.5, "--json").stdout
    )
    assert raw["document_epsilon"] == pytest.approx(64 * 2 * 15 / 0.5) and raw["relative"] is False
    bad = _run("privacy", "dp-prompt", "--clip", -8, 1, "--relative", "--max-tokens", 128, "--epsilon", 100)
    assert bad.exit_code != 0 and "needs high <= 0" in bad.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--epsilon", "-1"], "'epsilon' parameter of SynTF must be a float in the range (0, inf)"),
        (["--n-words", "0"], "'n_words' parameter of SynTF"),
        (["--bigram-weight", "2"], "'bigram_weight' parameter of SynTF"),
        (["--morphology", "stem"], "'morphology' parameter of SynTF must be one of"),
        (["--vocabulary", "missing-words.txt"], "Got 'missing-words.txt' instead (no such file)"),
    ],
)
def test_syntf_bad_options_exit_2_with_one_line(tmp_path, rows, args, message):
    infile = _write_input(tmp_path / "in.jsonl", rows[:3])
    result = _run("syntf", infile, "-o", tmp_path / "out.jsonl", *args)
    assert result.exit_code == 2
    assert message in " ".join(result.stderr.split())
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.parametrize(
    ("content", "output", "message"),
    [
        (b'{"id": 1, "text": "caf\xe9"}\n', "out.jsonl", "line 1 is not valid UTF-8"),
        (b'{"id": 1, "body": "x"}\n', "out.jsonl", "line 1 has no 'text' field"),
        (b'{"id": 1, "text": "a"}\n{"id": 1, "text": "b"}\n', "out.jsonl", "duplicate id 1"),
        (b'{"id": 1, "text": "hockey"}\n', "out.csv", "output must end in .jsonl or .npz"),
    ],
)
def test_syntf_bad_input_exit_2(tmp_path, content, output, message):
    infile = tmp_path / "in.jsonl"
    infile.write_bytes(content)
    result = _run("syntf", infile, "-o", tmp_path / output)
    assert result.exit_code == 2 and message in result.stderr
    assert len(_said(result.stderr)) == 1


def test_unknown_dataset_and_option_combinations():
    result = _run("syntf", "20newz", "-o", "x.jsonl")
    assert result.exit_code == 2 and "'20newz' is neither a file nor a dataset (20news, amt, blogs," in result.stderr
    result = _run("privacy", "syntf", "--epsilon", 1, "--n-words", 1)
    assert result.exit_code == 2 and "exactly one of --vocab-size and --embeddings" in result.stderr
    assert _run("syntf", "--no-such-option").exit_code == 2


def test_demo_runs_offline_on_real_messages():
    result = _run("demo", "--documents", 150)
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("demo: loading 20 Newsgroups")  # progress on stderr, the answer on stdout
    assert "tight_epsilon" in result.stdout and "what the analyst receives" in result.stdout
    assert "what survives across its messages" in result.stdout
    assert re.search(
        r"reaches accuracy \d\.\d\d on released vectors and \d\.\d\d on the originals", " ".join(result.stdout.split())
    )
    # the default a user should run: the public vocabulary, and what a reader is seeing explained
    said = " ".join(result.stdout.split())
    assert "vocabulary of 30,000 words" in said and "vocabulary_source=public" in said
    assert "a word can appear more often in the release than in the message" in said


def test_demo_without_data_says_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTHORGUARD_DATA", str(tmp_path))
    monkeypatch.setattr("authorguard.data.download.urllib.request.urlopen", _offline)
    result = _run("demo", "--documents", 10)
    assert result.exit_code == 2 and "cannot download" in result.stderr and "AUTHORGUARD_DATA" in result.stderr


def _offline(*args, **kwargs):
    raise OSError("network is unreachable")


def test_syntf_on_a_dataset_name_with_target_loss(tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("\n".join(SMALL_WORDS), encoding="utf-8")
    result = _run(
        "syntf",
        "20news",
        "-o",
        tmp_path / "news.npz",
        "--vocabulary",
        words,
        "--n-words",
        5,
        "--target-loss",
        6.0,
        "--seed",
        0,
        "--json",
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["loss_per_word"] == pytest.approx(6.0, abs=1e-2)
    matrix, _, ids = load_counts_npz(tmp_path / "news.npz")
    assert len(ids) == len(set(ids)) == 18_846 and ids[0] == "train/alt.atheism/49960"
    np.testing.assert_array_equal(np.asarray(matrix.sum(axis=1)).ravel(), 5)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--engine", "spark"], "'engine' parameter of anonymize must be one of 'local', 'ray'"),
        (["--resume", "--force"], "--resume and --force exclude each other"),
        (["--workers", "3"], "--workers applies to --engine ray"),
        (["--config", "missing.toml"], "config file 'missing.toml' does not exist"),
    ],
)
def test_anonymize_bad_options_exit_2_with_one_line(tmp_path, rows, args, message):
    infile = _write_input(tmp_path / "in.jsonl", rows[:3])
    result = _run("anonymize", infile, tmp_path / "out", "--method", "syntf", *args)
    assert result.exit_code == 2 and message in " ".join(result.stderr.split())
    assert not (tmp_path / "out").exists()


def test_anonymize_missing_input(tmp_path):
    result = _run("anonymize", tmp_path / "nope.jsonl", tmp_path / "out", "--method", "syntf")
    assert result.exit_code == 2 and "nope.jsonl: no such file or directory" in result.stderr


def test_experiment_run_cli_resumes_and_fails_on_bad_config(tmp_path, newsgroups):
    from authorguard.data.scenarios import AuthorshipScenario
    from tests.experiments.conftest import tiny_config_text

    authors = set(AuthorshipScenario(2).authors(newsgroups))
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(
        "".join(
            json.dumps({"id": i, "text": t, "author": a, "label": g, "split": s}) + "\n"
            for i, t, a, g, s in zip(
                newsgroups.ids, newsgroups.texts, newsgroups.authors, newsgroups.labels, newsgroups.splits
            )
            if a in authors
        ),
        encoding="utf-8",
    )
    config = tmp_path / "c.toml"
    config.write_text(
        tiny_config_text(
            corpus,
            runs=1,
            scenarios='["Top2-Any"]',
            attackers='["bow"]',
            classifiers='["nb"]',
            syntf_grid="{ epsilon = [10.0] }",
        ),
        encoding="utf-8",
    )
    first = _run("experiment", "run", config, "-o", tmp_path / "out")
    assert first.exit_code == 0, first.output
    again = _run("experiment", "run", config, "-o", tmp_path / "out", "--runs", "1")
    assert again.exit_code == 0
    assert json.loads((tmp_path / "out" / "experiment.json").read_text())["cells_computed"] == 0
    bad = tmp_path / "bad.toml"
    bad.write_text('runz = 1\n[[methods]]\nname = "original"\n', encoding="utf-8")
    result = _run("experiment", "run", bad, "-o", tmp_path / "bad")
    assert result.exit_code == 2 and "unknown key 'runz'" in result.output


def test_datasets_list_and_describe(tmp_path):
    listed = _run("datasets", "list")
    assert listed.exit_code == 0 and "blogs" in listed.stderr + listed.stdout
    described = _run("datasets", "describe", "blogs", "--top", 3, "--json")
    assert described.exit_code == 0, described.output
    summary = json.loads(described.stdout)
    assert summary["documents"] == 110_997 and summary["authors"] == 2380
    assert set(summary["columns"]) >= {"authors", "labels", "gender", "age_group", "topic"}
    assert len(summary["columns"]["labels"]["top"]) == 3 and summary["metadata"]["empty_posts"] == 395
    path = tmp_path / "mine.jsonl"
    path.write_text(
        json.dumps({"id": "1", "text": "a b", "author": "x", "label": "l", "split": "train"}) + "\n", encoding="utf-8"
    )
    mine = _run("datasets", "describe", "records", "--path", path, "--json")
    assert mine.exit_code == 0 and json.loads(mine.stdout)["documents"] == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["records"], "dataset 'records' is read from a file: give --path FILE"),
        (["blogs", "--path", "x.jsonl"], "dataset 'blogs' takes no --path"),
        (["nope"], "unknown dataset 'nope'"),
    ],
)
def test_datasets_describe_errors(args, message):
    result = _run("datasets", "describe", *args)
    assert result.exit_code == 2 and message in result.stderr


def test_datasets_scenarios_prints_counts_beside_tarot():
    result = _run("datasets", "scenarios", "AMT-10", "speech", "--seed", 3, "--json")
    assert result.exit_code == 0, result.output
    rows = {row["scenario"]: row for row in json.loads(result.stdout)}
    assert (
        rows["AMT-10"]["documents"] == 160 and rows["AMT-10"]["tarot_documents"] == 196 and rows["AMT-10"]["seed"] == 3
    )
    assert rows["speech"]["classes"] == {"obama": 50, "trump": 10}
    bad = _run("datasets", "scenarios", "IMDb-10")
    assert bad.exit_code == 2 and "unknown scenario 'IMDb-10'" in bad.stderr


@pytest.mark.parametrize(("source", "target"), [(".jsonl", ".jsonl"), (".csv", ".parquet"), (".parquet", ".csv")])
def test_obfuscate_rewrites_every_record_in_order(tmp_path, rows, source, target):
    infile = _write_input(tmp_path / f"in{source}", rows)
    outfile = tmp_path / f"out{target}"
    result = _run("obfuscate", infile, "-o", outfile, "--method", "dropout", "--seed", 3)
    assert result.exit_code == 0, result.output
    from authorguard.data.io import read_records

    out = read_records(outfile)
    assert [str(i) for i in out.ids] == [r["id"] for r in rows]  # records in = records out, same order, same ids
    originals = [r["text"] for r in rows]
    assert all(len(new.split()) < len(old.split()) for new, old in zip(out.texts, originals) if len(old.split()) > 20)
    again = tmp_path / f"again{target}"
    assert _run("obfuscate", infile, "-o", again, "--method", "dropout", "--seed", 3).exit_code == 0
    assert read_records(again).texts == out.texts  # the seed reproduces the rewrite


def test_obfuscate_with_a_config_and_the_identity(tmp_path, rows):
    infile = _write_input(tmp_path / "in.jsonl", rows)
    config = tmp_path / "synonyms.toml"
    config.write_text("rate = 0.9\n", encoding="utf-8")
    assert (
        _run(
            "obfuscate", infile, "-o", tmp_path / "syn.jsonl", "--method", "synonyms", "--config", config, "--seed", 1
        ).exit_code
        == 0
    )
    identity = _run("obfuscate", infile, "-o", tmp_path / "same.jsonl", "--method", "original")
    assert (
        identity.exit_code == 0
        and f"0 rewritten, 0 partly normalised, 0 released as their view, {len(rows)} kept as written, 0 withheld"
        in " ".join(identity.stdout.split())
    )
    same = [json.loads(line) for line in (tmp_path / "same.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["text"] for r in same] == [r["text"] for r in rows]
    assert {r["release_status"] for r in same} == {"kept"}  # every record says what became of it


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--method", "syntf"], "method 'syntf' does not rewrite text"),
        (["--method", "nope"], "unknown method 'nope'"),
        (["--method", "dropout", "--config", "RATE"], "unknown parameter 'probability' for method 'dropout'"),
        (["--method", "dropout", "--output", "out.txt"], "unknown file type '.txt'"),
    ],
)
def test_obfuscate_bad_options_exit_2_with_one_line(tmp_path, rows, args, message):
    infile = _write_input(tmp_path / "in.jsonl", rows)
    bad_config = tmp_path / "bad.toml"
    bad_config.write_text("probability = 0.5\n", encoding="utf-8")
    args = [str(bad_config) if a == "RATE" else (str(tmp_path / a) if a == "out.txt" else a) for a in args]
    if "--output" not in args:
        args += ["--output", str(tmp_path / "out.jsonl")]
    result = _run("obfuscate", infile, *args)
    assert result.exit_code == 2 and message in result.stderr and len(_said(result.stderr)) == 1


def test_obfuscate_non_utf8_input_is_one_line(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_bytes(b'{"id": 1, "text": "caf\xe9"}\n')
    result = _run("obfuscate", path, "-o", tmp_path / "out.jsonl", "--method", "dropout")
    assert result.exit_code == 2 and "UTF-8" in result.stderr


def test_help_does_not_import_torch():
    """Nor scikit-learn or scipy: a command that a resident server answers (``authorguard check``) starts in a
    fraction of a second."""
    import subprocess
    import sys

    code = (
        "import sys\nfrom typer.testing import CliRunner\nfrom authorguard.cli.app import app\n"
        "for args in (['--help'], ['train', '--help'], ['train', 'author-encoder', '--help']):\n"
        "    assert CliRunner().invoke(app, args).exit_code == 0, args\n"
        "print(sorted(m for m in ('torch', 'transformers', 'peft', 'sklearn', 'scipy') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize(
    ("content", "args", "message"),
    [
        ("stepz = 3\n", [], r"unknown key 'stepz'"),
        ("steps = 0\n", [], r"'steps' parameter"),
        ("steps = 3\nmin_texts_per_author = 1\n", [], r"two episodes"),
    ],
)
def test_train_author_encoder_bad_config_exit_2_with_one_line(tmp_path, content, args, message):
    config = tmp_path / "encoder.toml"
    config.write_text(content, encoding="utf-8")
    result = runner.invoke(
        app, ["train", "author-encoder", "--config", str(config), "-o", str(tmp_path / "out"), *args]
    )
    assert result.exit_code == 2
    assert re.search(message, result.output) and result.output.count("error:") == 1


def test_obfuscate_keeps_every_other_field_unless_told(tmp_path):
    rows = [
        {"id": 7, "text": "one two three four five six", "rating": 4, "lang": "en"},
        {"id": 8, "text": "seven eight nine ten eleven", "rating": 2, "lang": "fr"},
    ]
    for suffix in (".jsonl", ".csv", ".parquet"):
        infile = tmp_path / f"in{suffix}"
        pq.write_table(pa.Table.from_pylist(rows), infile) if suffix == ".parquet" else (
            infile.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
            if suffix == ".jsonl"
            else infile.write_text(
                "id,text,rating,lang\n" + "".join(f"{r['id']},{r['text']},{r['rating']},{r['lang']}\n" for r in rows)
            )
        )
        outfile = tmp_path / f"out{suffix}"
        assert _run("obfuscate", infile, "-o", outfile, "--method", "dropout", "--seed", 1).exit_code == 0
        from authorguard.data.io import read_records

        out = read_records(outfile, extra_fields=("rating", "lang"))
        assert out.fields == {"rating": ["4", "2"], "lang": ["en", "fr"]} and [str(i) for i in out.ids] == ["7", "8"]
        assert out.texts != [r["text"] for r in rows]
    dropped = tmp_path / "dropped.jsonl"
    assert (
        _run("obfuscate", tmp_path / "in.jsonl", "-o", dropped, "--method", "dropout", "--drop-fields").exit_code == 0
    )
    # only the id, the text, what became of the record and its fidelity verdict
    assert [sorted(json.loads(line)) for line in dropped.read_text().splitlines()] == [
        ["fidelity", "fidelity_reason", "id", "release_reason", "release_status", "text"]
    ] * 2


def test_a_named_id_field_must_exist(tmp_path, rows):
    infile = _write_input(tmp_path / "in.jsonl", rows)
    for args in (
        ["obfuscate", infile, "-o", tmp_path / "o.jsonl", "--method", "dropout"],
        ["syntf", infile, "-o", tmp_path / "o.jsonl", "--vocabulary", "embeddings"],
        ["anonymize", infile, tmp_path / "anon", "--method", "syntf"],
    ):
        result = _run(*args, "--id-field", "uid")
        assert result.exit_code == 2 and "id field 'uid'" in result.stderr and len(_said(result.stderr)) == 1, args
    assert not (tmp_path / "anon").exists()
    # left out, a file without ids is numbered by position, as documented
    nameless = tmp_path / "nameless.jsonl"
    nameless.write_text('{"text": "a b c d"}\n{"text": "e f g h"}\n', encoding="utf-8")
    assert _run("obfuscate", nameless, "-o", tmp_path / "n.jsonl", "--method", "original").exit_code == 0
    assert [json.loads(line)["id"] for line in (tmp_path / "n.jsonl").read_text().splitlines()] == [0, 1]


def test_every_method_is_listed_with_what_it_needs():
    from authorguard import registry

    every = json.loads(_run("methods", "--json").stdout)
    listed = [row for row in every if row["kind"] == "method"]
    assert [row["name"] for row in listed] == registry.methods.names()
    releases = [row for row in every if row["kind"] == "corpus release"]
    assert [row["name"] for row in releases] == registry.releases.names() == ["synth"]
    assert "DP per author" in releases[0]["guarantee"]
    assert {row["name"]: row["model"] for row in listed}["a4nt"] == "required"
    assert {row["name"]: row["output"] for row in listed}["syntf"] == "vectors"
    help_text = " ".join(runner.invoke(app, ["obfuscate", "--help"], terminal_width=200).stdout.split())
    text_methods = [row["name"] for row in listed if row["output"] == "text"]
    assert len(text_methods) == len(listed) - 1
    # the command's help names every text method before the options; `authorguard methods` describes each
    named = help_text.split("Text methods: ")[1].split(" ('authorguard methods'")[0].split(", ")
    assert named == text_methods and help_text.index("Text methods:") < help_text.index("--output")


def test_a4nt_without_a_model_names_the_flag(tmp_path, rows):
    infile = _write_input(tmp_path / "in.jsonl", rows)
    result = _run("obfuscate", infile, "-o", tmp_path / "o.jsonl", "--method", "a4nt")
    assert result.exit_code == 2 and "--model DIR" in result.stderr


def test_a4nt_train_refuses_an_unknown_device_before_touching_the_folder(tmp_path):
    pytest.importorskip("torch")
    result = _run("a4nt", "train", "-o", tmp_path / "model", "--device", "tpu")
    assert result.exit_code == 2 and "unknown device 'tpu'" in result.stderr
    assert not (tmp_path / "model").exists()


def test_obfuscate_epsilon_flag_goes_to_the_method_and_the_spent_epsilon_is_printed(tmp_path, rows, monkeypatch):
    infile = _write_input(tmp_path / "in.jsonl", rows)
    refused = _run("obfuscate", infile, "-o", tmp_path / "o.jsonl", "--method", "dropout", "--epsilon", 5)
    assert refused.exit_code == 2 and "unknown parameter 'epsilon' for method 'dropout'" in refused.stderr

    from authorguard.base import TextObfuscator

    class Spends(TextObfuscator):
        def obfuscate(self, texts):
            return [t.upper() for t in texts]

        def release_report(self):
            return {"document_epsilon": 2500.0, "secure_random": True}

    seen = {}

    def build(name, params, seed, model=None, *, epsilon=None, fallback=None):
        seen.update(params, **({"epsilon": epsilon} if epsilon is not None else {}))
        return Spends()

    monkeypatch.setattr("authorguard.methods.build.build_text_method", build)  # the API builds what the CLI runs
    result = _run("obfuscate", infile, "-o", tmp_path / "o.jsonl", "--method", "dp-prompt", "--epsilon", 2500)
    assert result.exit_code == 0 and seen == {"epsilon": 2500.0}
    assert "costs ε = 2,500" in " ".join(result.stdout.split())


def test_setup_records_the_data_directory_for_later_commands(tmp_path):
    import os
    import subprocess
    import sys

    from authorguard import config

    env = {k: v for k, v in os.environ.items() if k not in (config.DATA_ENV, "NLTK_DATA")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    infile = tmp_path / "in.jsonl"
    infile.write_text('{"id": 1, "text": "The quick brown fox jumps over the lazy dog."}\n', encoding="utf-8")
    command = [sys.executable, "-m", "authorguard.cli.app"]
    obfuscate = command + [
        "obfuscate",
        str(infile),
        "-o",
        str(tmp_path / "out.jsonl"),
        "--method",
        "synonyms",
        "--seed",
        "1",
    ]
    before = subprocess.run(obfuscate, env=env, capture_output=True, text=True)
    assert before.returncode == 2 and "authorguard setup --data-dir" in before.stderr
    data = config.data_dir()  # the tests' data directory
    status = subprocess.run(
        command + ["setup", "--data-dir", str(data), "--json"], env=env, capture_output=True, text=True
    )
    assert status.returncode == 0, status.stderr
    reported = json.loads(status.stdout)
    assert (
        reported["data_dir"] == str(data.resolve()) and reported["missing_nltk"] == [] and reported["corpora"]["20news"]
    )
    after = subprocess.run(obfuscate, env=env, capture_output=True, text=True)
    assert after.returncode == 0, after.stderr
    # the environment still wins over the recorded setting
    assert (
        subprocess.run(
            command + ["setup", "--json"], env={**env, config.DATA_ENV: str(tmp_path)}, capture_output=True, text=True
        ).stdout.count(str(tmp_path))
        >= 1
    )
