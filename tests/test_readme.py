"""The README's commands on tiny data: the data commands, the five use cases and the Python snippet, run as written
(only the sizes made small and the check's background a file), each answering on stdout; and the example-output
checker (scripts/docs/readme_examples.py) that finds a README block no longer printed."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "docs" / "readme_examples.py"
#: (what the README runs, what the tiny walk runs instead): the same commands, on small data
TINY = (
    ("--authors 20 --per-author 15", "--authors 4 --per-author 10"),
    ("--authors 1 --per-author 100", "--authors 1 --per-author 12"),
    ("me/449628-100.txt --known me/", "me/449628-012.txt --known me/ --background posts.jsonl --sizes 3 --no-server"),
    ("known=mine[:-1])", 'known=mine[:-1], background="posts.jsonl", sizes=(3,))'),
    ("--budget-minutes 5", "--budget-minutes 1"),
    ("budget_minutes=5", "budget_minutes=1"),
    ("configs/syntf-20news-quick.toml", "tiny.toml"),
)


@pytest.fixture(scope="module")
def readme_examples():
    spec = importlib.util.spec_from_file_location("readme_examples", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["readme_examples"] = module  # (its dataclass looks its module up there)
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("readme_examples", None)


def _tiny(code: str) -> str:
    for written, small in TINY:
        code = code.replace(written, small)
    return code


def test_every_readme_example_runs_on_tiny_data_and_answers_on_stdout(readme_examples, tmp_path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    examples = readme_examples.examples(readme)
    assert len(examples) == 6  # five use cases and the Python snippet, each with the output it prints
    env = {**os.environ, "COLUMNS": "120", "AUTHORGUARD_CHECK_SERVER": "0"}
    for command in readme_examples.data_commands(readme):
        subprocess.run(_tiny(command), shell=True, cwd=tmp_path, env=env, check=True, capture_output=True)
    assert (tmp_path / "me" / "449628-012.txt").is_file()
    quick = (ROOT / "configs" / "syntf-20news-quick.toml").read_text(encoding="utf-8")
    tiny = quick.replace("runs = 1", "runs = 1\nmax_documents_per_author = 12\ncontent_metrics = false")
    tiny = tiny.replace("grid = { target_loss = [25.4] }", "")  # the paper's ε per word, not calibrated to a loss
    (tmp_path / "tiny.toml").write_text(tiny, encoding="utf-8")
    for example in examples:
        code = _tiny(example.code)
        command = ["bash", "-e", "-c", code] if example.language == "bash" else [sys.executable, "-c", code]
        done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True)
        assert done.returncode == 0, (code, done.stderr[-2000:])
        assert done.stdout.strip(), code  # the answer is on stdout, so `> file` keeps it
        assert "Traceback" not in done.stderr, done.stderr[-2000:]
        assert "Warning" not in done.stdout and "Loading weights" not in done.stdout, done.stdout[-2000:]


def test_the_checker_finds_a_block_the_command_no_longer_prints(readme_examples):
    printed = "wrote 300 records to out.jsonl: 255 rewritten, 45 kept as written (12.5 s)\nfidelity: 300 faithful\n"
    same = "wrote 300 records to out.jsonl: 255 rewritten, 45 kept as written (9.1 s)\n"
    assert readme_examples.drift(same, printed) == []  # timings are masked
    assert readme_examples.drift("wrote 300 records to out.jsonl: 255 rew...\nfidelity: 300 faithful\n", printed) == []
    drifted = "wrote 300 records to out.jsonl: 265 rewritten, 35 kept as written (1 s)\n"
    assert readme_examples.drift(drifted, printed) == [drifted.strip()]
    # the expected lines in order: a later line shown before an earlier one is drift
    assert readme_examples.drift("fidelity: 300 faithful\nwrote 300 records...\n", printed) == ["wrote 300 records..."]
    assert readme_examples.drift("", printed) == ["(the block is empty)"]
    assert readme_examples.shown("a" * 200 + "\n\nb\nc\nd\n", 2) == "a" * 157 + "...\nb\n"


def test_the_readme_blocks_are_found_with_what_follows_each(readme_examples):
    text = "x\n```bash\nauthorguard demo\n```\n\n```text\nhello\n```\n```python\nprint(1)\n```\nno text block\n"
    (found,) = readme_examples.examples(text)
    assert (found.language, found.code, found.expected) == ("bash", "authorguard demo\n", "hello\n")
    assert text[found.span[0] : found.span[1]] == "hello\n"


def test_a_command_keeps_third_party_notices_out_of_its_output():
    code = (
        "from authorguard.cli.app import quiet_third_parties\n"
        "quiet_third_parties()\n"
        "import os, subprocess, sys, warnings\n"
        "warnings.warn('Liblinear failed to converge, increase the number of iterations.', UserWarning)\n"
        "warnings.warn('`is_gradient_checkpointing` is deprecated', FutureWarning)\n"
        "child = 'import warnings; warnings.warn(\"Liblinear failed to converge\", UserWarning)'\n"
        "subprocess.run([sys.executable, '-c', child], check=True)\n"  # a worker process: the environment's filters
        "print(os.environ['HF_HUB_DISABLE_PROGRESS_BARS'], os.environ['TRANSFORMERS_VERBOSITY'])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stderr == "" and done.stdout.split() == ["1", "error"]
