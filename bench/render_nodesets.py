"""Render time of the slinky-slurm chart against the number of NodeSets.

Renders the chart with 1, 10, 100 and 1000 NodeSets (each with its own volume and mount, merged
with defaults that have one too, storage enabled so every set also gets the shared claims), a few
times each, and prints a markdown table: median wall and CPU time of `helm template`, and the cost
of each NodeSet added since the previous row. A linear template gives flat last columns (the first
rows are dominated by Helm's start-up and are noisy).

    HELM_BIN=.tools/helm3/helm .venv/bin/python bench/render_nodesets.py
    .venv/bin/python bench/render_nodesets.py --helm .tools/helm4/helm --repeat 7 --sizes 1 10 100 1000
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from slinkykit import CHARTS_DIR, MAIN_CHART
from slinkykit.helm import Helm, find_helm, parse_documents


def values_for(nodesets: int) -> dict[str, Any]:
    """Values with exactly ``nodesets`` NodeSets, each declaring a volume and a mount of its own."""
    sets: dict[str, Any] = {"slinky": None}  # drop the default set: exactly `nodesets` are rendered
    for i in range(nodesets):
        sets[f"ns-{i:04d}"] = {
            "replicas": 1,
            "podSpec": {"volumes": [{"name": "local", "hostPath": {"path": f"/mnt/local/{i}"}}]},
            "slurmd": {"volumeMounts": [{"name": "local", "mountPath": "/local"}]},
        }
    return {
        "storage": {"enabled": True, "sharedStorageClass": "efs-sc"},
        "nodesetDefaults": {
            "podSpec": {"volumes": [{"name": "cache", "emptyDir": {}}]},
            "slurmd": {"volumeMounts": [{"name": "cache", "mountPath": "/cache"}]},
        },
        "nodesets": sets,
    }


def child_cpu() -> float:
    """CPU seconds (user + system) used so far by finished child processes."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_render(helm: Helm, chart: Path, values: dict[str, Any], expected: int) -> tuple[float, float]:
    """(wall, CPU) seconds of one `helm template`; checks that the expected NodeSets were rendered."""
    cpu, start = child_cpu(), time.perf_counter()
    text = helm.template(chart, [values], release=MAIN_CHART, namespace="slurm")
    elapsed, cpu = time.perf_counter() - start, child_cpu() - cpu
    rendered = sum(1 for d in parse_documents(text) if d.get("kind") == "NodeSet")
    if rendered != expected:
        raise SystemExit(f"error: rendered {rendered} NodeSets, expected {expected}")
    return elapsed, cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--helm", type=Path, default=None, help="helm binary (default: $HELM_BIN or .tools/helm3)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 10, 100, 1000], help="NodeSet counts")
    parser.add_argument("--repeat", type=int, default=7, help="renders per size; the median is reported")
    args = parser.parse_args(argv)
    if args.repeat < 1 or any(n < 1 for n in args.sizes):
        parser.error("--repeat and every --sizes value must be at least 1")
    helm = Helm(args.helm or find_helm(), timeout=1800)
    chart = CHARTS_DIR / MAIN_CHART
    wall: dict[int, float] = {}
    cpu: dict[int, float] = {}
    for n in sorted(set(args.sizes)):
        values = values_for(n)
        runs = []
        for r in range(args.repeat):
            print(f"  {n} NodeSets, render {r + 1}/{args.repeat}", file=sys.stderr, flush=True)
            runs.append(time_render(helm, chart, values, n))
        wall[n] = statistics.median(w for w, _ in runs)
        cpu[n] = statistics.median(c for _, c in runs)
    sizes = list(wall)

    def per_set(times: dict[int, float], i: int) -> str:
        """Cost of each NodeSet added since the previous row: flat when rendering is linear."""
        if i == 0:
            return "-"
        n, prev = sizes[i], sizes[i - 1]
        return f"{(times[n] - times[prev]) / (n - prev) * 1000:.2f}"

    print(f"Helm {helm.version}, `helm template` of charts/{MAIN_CHART}, median of {args.repeat} renders\n")
    print("| NodeSets | wall (s) | CPU (s) | wall per added NodeSet (ms) | CPU per added NodeSet (ms) |")
    print("|---:|---:|---:|---:|---:|")
    for i, n in enumerate(sizes):
        print(f"| {n} | {wall[n]:.3f} | {cpu[n]:.3f} | {per_set(wall, i)} | {per_set(cpu, i)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
