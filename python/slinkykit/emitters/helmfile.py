"""Helmfile deployer: one ``helmfile.yaml`` with both releases; ``slinky-slurm`` ``needs`` the pre release.

``needs`` makes ``helmfile apply`` install ``slinky-slurm-pre`` first and ``helmfile destroy`` remove it
last. ``wait`` stays off for both releases (see ``emitters/helm.py`` for why).
"""

from __future__ import annotations

from typing import Any

from . import BundlePlan, Emitted, File, Guide
from .helm import kept_claims_markdown


def helmfile(plan: BundlePlan) -> dict[str, Any]:
    """The helmfile.yaml document."""
    releases: list[dict[str, Any]] = []
    previous = ""
    for rel in plan.releases:
        release: dict[str, Any] = {
            "name": rel.name,
            "namespace": plan.namespace,
            "chart": f"./{rel.archive}",
            "values": [f"./{plan.values_file}"],
            "wait": False,
        }
        if previous:
            release["needs"] = [f"{plan.namespace}/{previous}"]
        releases.append(release)
        previous = rel.name
    return {"helmDefaults": {"createNamespace": True, "wait": False}, "releases": releases}


def emit(plan: BundlePlan) -> Emitted:
    pre, main = plan.pre.name, plan.main.name
    guide = Guide(
        title="Helmfile",
        prerequisites=("Helmfile 0.150 or newer (or 1.x) with Helm 3.8 or newer, and a kubeconfig for the target "
                       "cluster.",),
        deploy=(
            "```sh\nsha256sum --check checksums.txt\n"
            "helmfile apply          # or: helmfile --kube-context my-cluster apply\n```\n\n"
            f"`{main}` declares `needs: [{plan.namespace}/{pre}]`, so Helmfile installs `{pre}` first. "
            f"Both releases read `{plan.values_file}` and install the packaged charts under `charts/`."
        ),
        remove=(
            "```sh\nhelmfile destroy\n```\n\n"
            f"Helmfile removes releases in reverse `needs` order: `{main}` first, then `{pre}`. "
            + kept_claims_markdown(plan)
        ),
        why=(f"`wait: false` on both releases: waiting on `{pre}` would block on claims of a "
             "`WaitForFirstConsumer` class, which bind only once a slurmd pod mounts them."),
    )
    return Emitted((File("helmfile.yaml", "helmfile", docs=(helmfile(plan),)),), guide)
