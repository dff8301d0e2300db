"""A TAROT model folder: one sub-folder per stage, and ``tarot.json`` with what every stage shares.

    MODEL_DIR/tarot.json        policy config + tokenizer signature (a stage refuses a folder of another policy)
    MODEL_DIR/sft/              candidates.jsonl, data.jsonl, checkpoints/, adapter/, sft.json (config, stats, history)
    MODEL_DIR/prefs/            generations.jsonl, pairs.jsonl, prefs.json (config, filter counts, reward means)
    MODEL_DIR/dpo/              checkpoints/, adapter/, dpo.json (config, history), monitor.jsonl
    MODEL_DIR/ppo/              checkpoints/, adapter/, value_head.pt, ppo.json (config, history), monitor.jsonl

A stage is done when its ``<stage>.json`` has ``"done": true``. DPO and PPO are two ways of optimising the SFT
policy (the paper's two TAROT versions): each trains its own adapter over the merged SFT weights, so a folder may
hold both and the policy named ``dpo`` merges sft + dpo, the one named ``ppo`` sft + ppo.
"""

from __future__ import annotations

import json
from pathlib import Path

from authorguard.exceptions import InputError
from authorguard.neural.tarot.config import PolicyConfig

STAGES = ("sft", "prefs", "dpo", "ppo")
#: the policies of a folder and the adapters each merges, in order
POLICIES = {"base": (), "sft": ("sft",), "dpo": ("sft", "dpo"), "ppo": ("sft", "ppo")}


class TarotFolder:
    """Paths and records of one model folder."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def stage(self, name: str) -> Path:
        if name not in STAGES:
            raise InputError(f"TAROT: unknown stage {name!r} (stages: {', '.join(STAGES)})")
        return self.path / name

    def record_file(self, name: str) -> Path:
        return self.stage(name) / f"{name}.json"

    def read_record(self, name: str) -> dict:
        file = self.record_file(name)
        if not file.is_file():
            return {}
        try:
            return json.loads(file.read_text(encoding="utf-8"))
        except ValueError:
            raise InputError(
                f"TAROT folder {self.path}: {file.name} is not valid JSON (damaged? delete the stage folder)"
            ) from None

    def write_record(self, name: str, record: dict) -> None:
        file = self.record_file(name)
        file.parent.mkdir(parents=True, exist_ok=True)
        staging = file.with_suffix(".json.partial")
        staging.write_text(json.dumps(record, indent=2), encoding="utf-8")
        staging.replace(file)

    def done(self, name: str) -> bool:
        return bool(self.read_record(name).get("done"))

    def require(self, name: str, before: str) -> None:
        if not self.done(name):
            raise InputError(
                f"TAROT folder {self.path}: stage {name!r} is not done; run 'authorguard tarot {name}' "
                f"before {before!r}"
            )

    def adapters(self, policy: str) -> list[Path]:
        """The adapter folders that make ``policy`` (a key of :data:`POLICIES`), in merge order; each stage must be
        done."""
        if policy not in POLICIES:
            raise InputError(f"TAROT: unknown policy {policy!r} (policies: {', '.join(POLICIES)})")
        for name in POLICIES[policy]:
            self.require(name, f"the {policy} policy")
        return [self.stage(name) / "adapter" for name in POLICIES[policy]]

    def branch(self, source: str | Path) -> None:
        """Start this (new) folder from ``source``'s SFT policy: its tarot.json, its done SFT stage (record and
        adapter) and its stored preference generations (rewrites of the SFT policy, which no reward choice changes),
        so that a reward ablation or PPO trains from the very same SFT policy without sampling again."""
        import shutil

        origin = TarotFolder(source)
        origin.policy_config()
        origin.require("sft", "branching")
        if self.path.exists() and any(self.path.iterdir()):
            raise InputError(f"cannot branch into {self.path}: it exists and is not empty")
        self.path.mkdir(parents=True, exist_ok=True)
        shutil.copy2(origin.path / "tarot.json", self.path / "tarot.json")
        shutil.copytree(origin.stage("sft") / "adapter", self.stage("sft") / "adapter")
        shutil.copy2(origin.record_file("sft"), self.record_file("sft"))
        if (origin.stage("prefs") / "generations").is_dir():
            shutil.copytree(origin.stage("prefs") / "generations", self.stage("prefs") / "generations")

    # the shared record ---------------------------------------------------------------------------------------------

    def policy_config(self) -> PolicyConfig:
        file = self.path / "tarot.json"
        if not file.is_file():
            raise InputError(
                f"{self.path} is not a TAROT model folder (no tarot.json): train one with 'authorguard tarot sft -o "
                "DIR'"
            )
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
            return PolicyConfig.from_dict(data["policy"])
        except (ValueError, KeyError, TypeError):
            raise InputError(f"TAROT folder {self.path}: tarot.json is damaged") from None

    def claim(self, policy: PolicyConfig, signature: dict) -> None:
        """Record the policy config and tokenizer signature, or check them against the recorded ones."""
        file = self.path / "tarot.json"
        if file.is_file():
            recorded = self.policy_config()
            if recorded != policy:
                raise InputError(f"TAROT folder {self.path} was trained with another policy config; use a new folder")
            self.check_tokenizer(signature)
            return
        self.path.mkdir(parents=True, exist_ok=True)
        file.write_text(json.dumps({"policy": policy.to_dict(), "tokenizer": signature}, indent=2), encoding="utf-8")

    def check_tokenizer(self, signature: dict) -> None:
        data = json.loads((self.path / "tarot.json").read_text(encoding="utf-8"))
        if data.get("tokenizer") != signature:
            raise InputError(
                f"TAROT folder {self.path} was trained with another tokenizer ({data.get('tokenizer')}; the "
                f"installed SmolLM2 gives {signature}): retrain it"
            )
