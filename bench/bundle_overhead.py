"""What `slinkykit bundle` adds on top of the two `helm template` calls it needs, per deployer.

Each round, side by side in one process: the two bare `helm template` calls (pre chart, then main
chart, from the packaged archives with the bundle's values file, exactly what a bundle renders),
then one full bundle (read recipe, resolve values, package, render, emit, validate every object,
write the folder atomically). Medians over the rounds; overhead = bundle / bare - 1. The budget is
50%: `--check` exits 1 above it. A cold row times the console script end to end (Python start-up
and imports included) against the same bare calls, for reference.

    .venv/bin/python bench/bundle_overhead.py                  # Helm 3 and Helm 4 from .tools/
    .venv/bin/python bench/bundle_overhead.py --helm .tools/helm4/helm --rounds 21 --write --check
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from slinkykit import CHARTS_DIR, REPO_ROOT
from slinkykit import bundle as b
from slinkykit import recipe as r
from slinkykit.emitters import DEPLOYERS
from slinkykit.helm import Helm, find_helm

BUDGET = 0.50
README = REPO_ROOT / "bench" / "README.md"
START, END = "<!-- bundle_overhead:start -->", "<!-- bundle_overhead:end -->"
EXAMPLE = REPO_ROOT / "values-examples" / "eks-h100-ubuntu-training.recipe.yaml"
VALUES = REPO_ROOT / "values-examples" / "eks-values.yaml"


@dataclass
class Row:
    """Medians of one deployer: wall and CPU seconds (CPU = this process + its children, e.g. helm)."""

    deployer: str
    bare_wall: float
    bundle_wall: float
    bare_cpu: float
    bundle_cpu: float

    @property
    def overhead(self) -> float:
        return self.bundle_wall / self.bare_wall - 1


def cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed(fn: Callable[[], object]) -> tuple[float, float]:
    """(wall, CPU) seconds of one call."""
    cpu, start = cpu_seconds(), time.perf_counter()
    fn()
    return time.perf_counter() - start, cpu_seconds() - cpu


def bare_calls(helm: Helm, bundle: Path) -> Callable[[], None]:
    """The two `helm template` calls of a bundle, run directly (no slinkykit code on the path)."""
    archives = sorted((bundle / "charts").glob("*.tgz"))
    pre = next(a for a in archives if a.name.startswith("slinky-slurm-pre-"))
    main = next(a for a in archives if not a.name.startswith("slinky-slurm-pre-"))
    cmds = [[str(helm.binary), "template", release, str(archive), "--namespace", "slurm",
             "--values", str(bundle / "values.yaml")]
            for release, archive in (("slinky-slurm-pre", pre), ("slinky-slurm", main))]

    def run() -> None:
        for cmd in cmds:
            subprocess.run(cmd, check=True, capture_output=True)

    return run


def options(recipe: Path, deployer: str, output: Path) -> b.BundleOptions:
    return b.BundleOptions(recipe=recipe, output=output, deployer=deployer, value_files=(VALUES,),
                           sets=("slinkyslurm:enroot.env.NCCL_DEBUG_SUBSYS=INIT,NET",), force=True,
                           git_path="clusters/gpu/slurm")


def side_by_side(name: str, bare: Callable[[], object], bundle: Callable[[], object], rounds: int) -> Row:
    bare()
    bundle()  # warm both paths (page cache, imports, schema store)
    bare_t, bundle_t = [], []
    for _ in range(rounds):
        bare_t.append(timed(bare))
        bundle_t.append(timed(bundle))
    med = statistics.median
    return Row(name, med(t[0] for t in bare_t), med(t[0] for t in bundle_t), med(t[1] for t in bare_t),
               med(t[1] for t in bundle_t))


def measure(helm: Helm, rounds: int) -> list[Row]:
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="slinkykit-bench-") as tmp:
        work = Path(tmp)
        recipe = work / "recipe.yaml"
        recipe.write_text(r.load(EXAMPLE).dumps())
        b.write(b.build(options(recipe, "helm", work / "reference"), helm), work / "reference")
        bare = bare_calls(helm, work / "reference")
        for deployer in DEPLOYERS:
            opts = options(recipe, deployer, work / deployer)

            def bundle(opts: b.BundleOptions = opts) -> None:
                b.write(b.build(opts, helm), opts.output, force=True)

            rows.append(side_by_side(deployer, bare, bundle, rounds))
        exe = Path(sys.executable).parent / "slinkykit"
        env = {**os.environ, "HELM_BIN": str(helm.binary)}
        cmd = [str(exe), "bundle", "-q", "--recipe", str(recipe), "--values", str(VALUES), "--deployer", "helm",
               "--output", str(work / "cold"), "--force"]
        rows.append(side_by_side("helm (cold CLI)", bare,
                                 lambda: subprocess.run(cmd, check=True, capture_output=True, env=env),
                                 max(3, rounds // 3)))
    return rows


def table(rows: list[Row], helm: Helm, rounds: int) -> str:
    lines = [f"Helm {helm.version}, Python {platform.python_version()}, {os.cpu_count()} CPUs, median of {rounds} "
             "rounds (cold CLI: a third as many):",
             "",
             "| Deployer | 2 x bare `helm template`: wall / CPU (ms) | `slinkykit bundle`: wall / CPU (ms) "
             "| Overhead (wall) |",
             "|---|---:|---:|---:|"]
    for row in rows:
        lines.append(f"| {row.deployer} | {row.bare_wall * 1000:.0f} / {row.bare_cpu * 1000:.0f} "
                     f"| {row.bundle_wall * 1000:.0f} / {row.bundle_cpu * 1000:.0f} | {row.overhead:+.0%} |")
    return "\n".join(lines) + "\n"


INTRO = """\
## Bundle overhead (`bundle_overhead.py`)

What `slinkykit bundle` adds on top of the two `helm template` calls it needs, measured side by side
in one run: each round times the two bare calls (the packaged pre and main charts with the bundle's
values file, run one after the other), then one whole bundle in the same process (recipe, values,
packaging, both renders, emitting, validation of every rendered and emitted object, atomic write),
for the EKS example with `values-examples/eks-values.yaml`. Budget: the bundle's wall time at most
50% over the bare calls (`--check` enforces it on the in-process rows).

```sh
.venv/bin/python bench/bundle_overhead.py --rounds 21 --write     # Helm 3 and Helm 4 from .tools/
```

Where the time goes: the bundle renders both charts concurrently and validates each chart's objects
(and the deployer's files) while Helm is still working, so most of its Python work hides behind
Helm; what shows is the validation of the last chart's objects. About 60% of the Python CPU is
kubernetes-validate reading its bundled 1.4 MB `_definitions.json` again for every core object
(`validation.py` calls `kubernetes_validate.validate` per object); caching that would take a bundle
from about 120 ms to about 50 ms of Python CPU. The cold row runs the console script once per round:
Python start-up, imports (jsonschema, kubernetes-validate) and loading every CRD of the schema folder
(about 0.35 s, all kinds parsed up front) come on top, once per invocation.

"""


def write_readme(texts: list[str]) -> None:
    section = f"{START}\n{INTRO}" + "\n".join(texts) + f"{END}\n"
    current = README.read_text(encoding="utf-8") if README.exists() else "# Benchmarks\n"
    if START in current and END in current:
        head, _, rest = current.partition(START)
        _, _, tail = rest.partition(END)
        updated = head + section.rstrip("\n") + tail
    else:
        updated = current.rstrip("\n") + "\n\n" + section
    README.write_text(updated, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--helm", type=Path, action="append",
                        help="helm binary, repeatable (default: $HELM_BIN, else the project's Helm 3 and Helm 4)")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--write", action="store_true", help=f"update the table in {README.relative_to(REPO_ROOT)}")
    parser.add_argument("--check", action="store_true", help="exit 1 when an in-process row is over budget")
    args = parser.parse_args(argv)
    tools = [REPO_ROOT / ".tools" / name / "helm" for name in ("helm3", "helm4")]
    binaries = args.helm or ([find_helm()] if os.environ.get("HELM_BIN") else [t for t in tools if t.exists()])
    if not os.environ.get("SLINKYKIT_SCHEMAS") and (REPO_ROOT.parent / "shared" / "schemas").is_dir():
        os.environ["SLINKYKIT_SCHEMAS"] = str(REPO_ROOT.parent / "shared" / "schemas")
    if not (CHARTS_DIR / "slinky-slurm").is_dir() or not binaries or not all(shutil.which(str(b)) for b in binaries):
        print("error: charts or helm missing; run ./dev setup", file=sys.stderr)
        return 2
    texts, over = [], []
    for binary in binaries:
        helm = Helm(binary)
        rows = measure(helm, args.rounds)
        texts.append(table(rows, helm, args.rounds))
        print(texts[-1])
        over += [f"{row.deployer} (Helm {helm.version})" for row in rows
                 if "cold" not in row.deployer and row.overhead > BUDGET]
    if args.write:
        write_readme(texts)
    if args.check and over:
        print(f"error: over the {BUDGET:.0%} budget: {', '.join(over)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
