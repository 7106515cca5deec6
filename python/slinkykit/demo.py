"""The README's first command (``./dev demo``): a recipe and a bundle from the EKS example.

Runs the two commands an operator runs, through the real CLI, and prints where the bundle went::

    slinkykit recipe --service eks --accelerator h100 --os ubuntu --intent training --platform slurm \\
        --output out/demo/recipe.yaml
    slinkykit bundle --recipe out/demo/recipe.yaml --values values-examples/eks-values.yaml \\
        --deployer helm --output out/bundle-eks-helm --force

``python -m slinkykit.demo --deployer flux`` (or helmfile, argocd) writes ``out/bundle-eks-flux`` instead.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from . import REPO_ROOT
from .cli import main as slinkykit
from .emitters import DEPLOYERS


def commands(deployer: str, out: Path) -> list[list[str]]:
    """The two CLI invocations of the demo."""
    recipe = out / "demo" / "recipe.yaml"
    return [
        ["recipe", "--service", "eks", "--accelerator", "h100", "--os", "ubuntu", "--intent", "training",
         "--platform", "slurm", "--output", str(recipe)],
        ["bundle", "--recipe", str(recipe), "--values", str(REPO_ROOT / "values-examples" / "eks-values.yaml"),
         "--deployer", deployer, "--output", str(out / f"bundle-eks-{deployer}"), "--force"],
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m slinkykit.demo", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deployer", default="helm", choices=DEPLOYERS)
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "out", help="parent folder (default: out/)")
    args = parser.parse_args(argv)
    for cmd in commands(args.deployer, args.out):
        print("$ slinkykit " + shlex.join(cmd), file=sys.stderr)
        code = slinkykit(cmd)
        if code:
            return code
    bundle = args.out / f"bundle-eks-{args.deployer}"
    print(f"demo bundle: {bundle}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
