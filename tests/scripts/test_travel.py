"""scripts/device/travel.py on a throw-away git repository: slim takes files out of the index, restore puts back
the very same index and exclude file, and the size counts what a device call copies."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.scripts.loading import load_script


@pytest.fixture(scope="module")
def travel():
    return load_script("device/travel.py")


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, check=True, text=True).stdout


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    _git(tmp_path, "init", "-q")
    files = {
        "src/pkg/a.py": b"x" * 100,
        "src/pkg/weights.bin": b"w" * 5000,
        "docs/page [1].md": b"d" * 300,
        "README.md": b"r" * 50,
    }
    for name, content in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(content)
    (tmp_path / ".gitignore").write_text("/runs/\n")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "files")
    (tmp_path / "untracked.txt").write_bytes(b"u" * 7)  # travels: untracked, not ignored
    (tmp_path / "runs" / "carry").mkdir(parents=True)
    (tmp_path / "runs" / "carry" / "model.bin").write_bytes(b"m" * 2000)
    return tmp_path


def test_size_counts_tracked_untracked_and_carried(travel, repo):
    tree, carried = travel.travelling_bytes(repo, ["runs/carry"])
    assert tree == 100 + 5000 + 300 + 50 + len("/runs/\n") + 7
    assert carried == 2000


@pytest.mark.parametrize("exclude_before", [None, b"# mine\r\n/local-notes\r\n"])
def test_slim_then_restore_round_trips(travel, repo, exclude_before):
    index_before = (repo / ".git" / "index").read_bytes()
    exclude = repo / ".git" / "info" / "exclude"
    if exclude_before is None:
        exclude.unlink(missing_ok=True)
    else:
        exclude.write_bytes(exclude_before)

    dropped = travel.slim(repo, ["src"], max_file_bytes=1000)
    assert sorted(dropped) == [".gitignore", "README.md", "docs/page [1].md", "src/pkg/weights.bin"]
    assert travel.travelling_files(repo) == ["src/pkg/a.py", "untracked.txt"]  # the rest ignored, not untracked
    assert (repo / "src/pkg/weights.bin").read_bytes() == b"w" * 5000  # nothing on disk changes
    assert {line[:2] for line in _git(repo, "status", "--porcelain").splitlines()} == {"D ", "??"}  # staged, slim
    with pytest.raises(SystemExit, match="already slim"):
        travel.slim(repo, ["src"], None)

    travel.restore(repo)
    assert (repo / ".git" / "index").read_bytes() == index_before
    assert (exclude.read_bytes() if exclude.exists() else None) == exclude_before  # byte for byte, or still absent
    assert "untracked.txt" in travel.travelling_files(repo) and "README.md" in travel.travelling_files(repo)
    with pytest.raises(SystemExit, match="not slim"):
        travel.restore(repo)


def test_restore_refuses_to_undo_a_commit_made_while_slim(travel, repo):
    travel.slim(repo, ["src"], None)
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "oops, while slim")
    with pytest.raises(SystemExit, match="HEAD moved"):
        travel.restore(repo)
    travel.restore(repo, force=True)  # the user's call: the index as it was before slim


def test_a_failure_part_way_through_slim_restores_the_checkout(travel, repo, monkeypatch):
    index_before = (repo / ".git" / "index").read_bytes()
    real_git = travel._git

    def failing_git(root, *args, **kwargs):
        if args[:1] == ("rm",):
            raise subprocess.CalledProcessError(128, ["git", *args], stderr=b"index.lock exists")
        return real_git(root, *args, **kwargs)

    monkeypatch.setattr(travel, "_git", failing_git)
    with pytest.raises(subprocess.CalledProcessError):
        travel.slim(repo, ["src"], None)
    monkeypatch.setattr(travel, "_git", real_git)
    assert (repo / ".git" / "index").read_bytes() == index_before
    assert not (repo / ".git" / "travel-index").exists()  # not slim: a new slim may start


def test_a_linked_worktree_is_slimmed_through_the_shared_exclude_file(travel, repo, tmp_path_factory):
    worktree = tmp_path_factory.mktemp("worktrees") / "wt"
    _git(repo, "worktree", "add", "-q", str(worktree))
    travel.slim(worktree, ["src"], None)
    assert travel.travelling_files(worktree) == ["src/pkg/a.py", "src/pkg/weights.bin"]
    travel.restore(worktree)
    assert "README.md" in travel.travelling_files(worktree)


def test_command_restores_when_over_the_limit(travel, repo, monkeypatch, capsys):
    monkeypatch.chdir(repo)
    monkeypatch.setattr(travel, "LIMIT_MIB", 1000 / 2**20)  # 1,000 bytes: the carried folder alone is over
    index_before = (repo / ".git" / "index").read_bytes()
    assert travel.main(["slim", "--keep", "src", "--carry", "runs/carry"]) == 1
    assert (repo / ".git" / "index").read_bytes() == index_before
    assert "over the limit" in capsys.readouterr().err
