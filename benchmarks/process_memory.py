"""Peak resident memory of a command's whole process tree, sampled from /proc (Linux), for the benchmarks."""

from __future__ import annotations

import os
import subprocess
import time


def _children(pid: int) -> list[int]:
    found, frontier = [], [pid]
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
                parents.setdefault(ppid, []).append(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    while frontier:
        current = frontier.pop()
        found.append(current)
        frontier.extend(parents.get(current, []))
    return found


def _rss_mib(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024
    except (OSError, StopIteration):
        return 0.0


def wait_sampling_memory(process: subprocess.Popen, interval: float = 0.1) -> tuple[float, float]:
    """Wait for ``process``; (peak RSS of its whole tree, peak RSS of its largest process), MiB."""
    peak_tree = peak_single = 0.0
    while process.poll() is None:
        sizes = [_rss_mib(pid) for pid in _children(process.pid)]
        peak_tree, peak_single = max(peak_tree, sum(sizes)), max(peak_single, max(sizes, default=0.0))
        time.sleep(interval)
    return peak_tree, peak_single
