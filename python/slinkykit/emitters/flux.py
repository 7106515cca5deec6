"""Flux deployer: a ``GitRepository`` chart source, two ``helm.toolkit.fluxcd.io/v2`` HelmReleases and a
``kustomization.yaml`` listing them.

Chart source: the bundle is committed to a Git repository (``--git-url``, ``--git-branch``,
``--git-path``); each HelmRelease points at its packaged chart in that checkout
(``chart: ./<path>/charts/<chart>-<version>.tgz``), which source-controller serves as-is. No chart
registry is needed, and the GitRepository's ``ignore`` keeps its artifact down to the ``charts/`` folder.

Both HelmReleases live in ``flux-system`` and install into the bundle's namespace:

* ``releaseName`` is explicit (Flux's default would be ``<targetNamespace>-<name>``, which changes
  every object name and the ``app.kubernetes.io/instance`` pod selectors operators use);
* ``storageNamespace`` is the target namespace, so ``helm list -n <namespace>`` shows the releases;
* ``slinky-slurm`` ``dependsOn`` ``slinky-slurm-pre``;
* waiting is off on both (``disableWait``): the pre release would otherwise never turn Ready while its
  claims wait for a first consumer, and ``dependsOn`` would hold the main release back forever.

Values are inline (``spec.values``): the same resolved values the bundle rendered and validated.
"""

from __future__ import annotations

from typing import Any

from . import BundlePlan, Emitted, File, Guide
from .helm import kept_claims_markdown

FLUX_NAMESPACE = "flux-system"
SOURCE_NAME = "slinky-slurm-charts"
INTERVAL = "10m"


def _repo_path(plan: BundlePlan, rel: str) -> str:
    base = plan.git.path.strip("/")
    return f"./{base}/{rel}" if base and base != "." else f"./{rel}"


def git_ignore(path: str) -> str:
    """``spec.ignore`` (gitignore syntax) keeping only ``<path>/charts/`` of the repository."""
    parts = [p for p in path.strip("/").split("/") if p and p != "."]
    lines = ["/*"]
    prefix = ""
    for part in [*parts, "charts"]:
        prefix += f"/{part}"
        lines.append(f"!{prefix}/")
        if part != "charts":
            lines.append(f"{prefix}/*")
    return "\n".join(lines) + "\n"


def git_repository(plan: BundlePlan) -> dict[str, Any]:
    spec: dict[str, Any] = {"interval": INTERVAL, "url": plan.git.url, "ref": {"branch": plan.git.branch}}
    if plan.git.secret:
        spec["secretRef"] = {"name": plan.git.secret}
    spec["ignore"] = git_ignore(plan.git.path)
    return {"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "GitRepository",
            "metadata": {"name": SOURCE_NAME, "namespace": FLUX_NAMESPACE}, "spec": spec}


def helm_release(plan: BundlePlan, index: int) -> dict[str, Any]:
    rel = plan.releases[index]
    spec: dict[str, Any] = {
        "releaseName": rel.name,
        "targetNamespace": plan.namespace,
        "storageNamespace": plan.namespace,
        "interval": INTERVAL,
        "chart": {"spec": {
            "chart": _repo_path(plan, rel.archive),
            "reconcileStrategy": "ChartVersion",
            "sourceRef": {"kind": "GitRepository", "name": SOURCE_NAME, "namespace": FLUX_NAMESPACE},
        }},
    }
    if index > 0:
        spec["dependsOn"] = [{"name": plan.releases[index - 1].name}]
    install: dict[str, Any] = {"disableWait": True, "remediation": {"retries": 3}}
    if index == 0:
        install = {"createNamespace": True, **install}
    spec["install"] = install
    spec["upgrade"] = {"disableWait": True, "remediation": {"retries": 3}}
    spec["values"] = dict(plan.values)
    return {"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
            "metadata": {"name": rel.name, "namespace": FLUX_NAMESPACE}, "spec": spec}


def emit(plan: BundlePlan) -> Emitted:
    manifests = [File("flux/gitrepository.yaml", "objects", docs=(git_repository(plan),))]
    for i, rel in enumerate(plan.releases):
        manifests.append(File(f"flux/helmrelease-{rel.name}.yaml", "objects", docs=(helm_release(plan, i),)))
    kustomization = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
                     "resources": [f.path.removeprefix("flux/") for f in manifests]}
    files = (*manifests, File("flux/kustomization.yaml", "kustomize", docs=(kustomization,)))
    pre, main = plan.pre.name, plan.main.name
    where = plan.git.path.strip("/") or "."
    guide = Guide(
        title="Flux",
        prerequisites=(
            "Flux 2.3 or newer (HelmRelease `helm.toolkit.fluxcd.io/v2`, GitRepository `source.toolkit.fluxcd.io/v1`).",
            f"This folder committed to `{plan.git.url}` (branch `{plan.git.branch}`) at `{where}`: the "
            "HelmReleases read the packaged charts from that checkout. "
            + (f"Flux reads it with the credentials in Secret `{FLUX_NAMESPACE}/{plan.git.secret}`."
               if plan.git.secret else "For a private repository, regenerate with `--git-secret NAME` "
               f"(a Secret in `{FLUX_NAMESPACE}` holding the Git credentials)."),
        ),
        deploy=(
            "Commit the bundle, then either list `" + (f"{where}/" if where != "." else "") + "flux` in the "
            "Flux Kustomization that syncs your cluster, or apply it once by hand:\n\n"
            "```sh\nsha256sum --check checksums.txt\nkubectl apply -k flux/\n"
            f"flux get helmreleases --namespace {FLUX_NAMESPACE}\n```\n\n"
            f"`{main}` has `dependsOn: [{pre}]`, so helm-controller installs it only after `{pre}` is Ready. "
            f"Both use `releaseName` `{pre}` / `{main}` and store their Helm history in `{plan.namespace}`."
        ),
        remove=(
            "Remove the main release first and wait for it, then the pre release (Flux does not order "
            "deletions by `dependsOn`):\n\n"
            f"```sh\nkubectl delete helmrelease --namespace {FLUX_NAMESPACE} {main} --wait\n"
            f"kubectl delete helmrelease --namespace {FLUX_NAMESPACE} {pre} --wait\n"
            f"kubectl delete gitrepository --namespace {FLUX_NAMESPACE} {SOURCE_NAME}\n```\n\n"
            "If the objects came from your Flux Kustomization, delete the two HelmReleases as above "
            "before removing `flux/` from Git.\n\n" + kept_claims_markdown(plan)
        ),
        why=(
            "Flux's default release name would be `<targetNamespace>-<name>` (`"
            f"{plan.namespace}-{main}`), which renames every object and breaks the `app.kubernetes.io/instance` "
            "selectors used to find the Slurm pods; `releaseName` keeps the names the charts document. "
            f"`disableWait` on `{pre}`: Helm's wait would hold it until its claims bind, which on a "
            f"`WaitForFirstConsumer` class happens only after `{main}` starts a slurmd pod, so the "
            "`dependsOn` chain would never move."
        ),
    )
    return Emitted(files, guide)
