"""Argo CD deployer: one Application with two Helm sources (pre chart first), plus the repository Secret.

Why one Application and no sync wave for the claims: Argo CD moves to the next sync wave only when
every resource of the current wave is Healthy, and a PersistentVolumeClaim is Healthy only when
Bound. A claim on a ``WaitForFirstConsumer`` class binds when the first slurmd pod mounts it, so
putting the pre objects in an earlier wave (or in a child Application that a parent waits for)
deadlocks the sync. In a single wave Argo CD still applies strictly in kind order, each kind group
finished before the next starts (gitops-engine ``syncTasks.Less``/``runTasks``): Secrets, ConfigMaps
and PersistentVolumeClaims before any custom resource. The pre chart renders only such core kinds
and the Slinky objects are custom resources, so the pre objects exist before any Slinky resource is
created; :func:`check` verifies that on every bundle.

Charts come from an OCI registry (``--chart-registry``): Argo CD reads Helm charts from chart
repositories or chart folders, not packaged ``.tgz`` files in Git, so the operator pushes the two
packaged charts of the bundle there (``helm push``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from . import BundlePlan, EmitError, Emitted, File, Guide, ObjectRef
from .helm import kept_claims_markdown

ARGOCD_NAMESPACE = "argocd"
APP_NAME = "slinky-slurm"
REPO_SECRET = "slinkykit-charts"
#: Argo CD's apply order of core kinds within one wave (gitops-engine ``kindOrder``); any other kind
#: (custom resources) comes after all of them.
KIND_ORDER = (
    "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange", "PodSecurityPolicy", "PodDisruptionBudget",
    "ServiceAccount", "Secret", "SecretList", "ConfigMap", "StorageClass", "PersistentVolume",
    "PersistentVolumeClaim", "CustomResourceDefinition", "ClusterRole", "ClusterRoleList", "ClusterRoleBinding",
    "ClusterRoleBindingList", "Role", "RoleList", "RoleBinding", "RoleBindingList", "Service", "DaemonSet", "Pod",
    "ReplicationController", "ReplicaSet", "Deployment", "HorizontalPodAutoscaler", "StatefulSet", "Job",
    "CronJob", "Ingress", "APIService",
)


def apply_rank(kind: str) -> int:
    """Position of a kind in Argo CD's apply order within a wave (custom kinds share the last rank)."""
    return KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER)


def check_order(pre: Iterable[ObjectRef], main: Iterable[ObjectRef]) -> None:
    """Fail unless every pre object is applied before every custom resource of the main release."""
    late_pre = [o for o in pre if apply_rank(o.kind) >= len(KIND_ORDER)]
    if late_pre:
        o = late_pre[0]
        raise EmitError(f"argocd: the pre chart renders {o.kind}/{o.name}, a kind Argo CD applies last; it could "
                        "be created after the Slinky resources, so this bundle cannot order it (use --deployer helm)")
    first_pre = max((apply_rank(o.kind) for o in pre), default=-1)
    early_main = [o for o in main if o.api_version.startswith("slinky.slurm.net/") and apply_rank(o.kind) <= first_pre]
    if early_main:
        o = early_main[0]
        raise EmitError(f"argocd: {o.kind}/{o.name} would be applied before the pre objects")


def check(plan: BundlePlan) -> None:
    """The rule about rendered objects: the pre objects are applied before the Slinky resources."""
    check_order(plan.pre.objects, plan.main.objects)


def _check_keys(plan: BundlePlan) -> None:
    for ref in ("slurmKeyRef", "jwtKeyRef"):
        if (plan.values.get(ref) or {}).get("create"):
            raise EmitError(f"{ref}.create=true: Argo CD renders charts with helm template, where the chart cannot "
                            "look up the existing key and would generate a new one on every sync; create the Secret "
                            f"once and set {ref}.create=false")


def application(plan: BundlePlan) -> dict[str, Any]:
    sources = [{
        "repoURL": plan.chart_registry,
        "chart": rel.chart,
        "targetRevision": rel.version,
        "helm": {"releaseName": rel.name, "valuesObject": dict(plan.values)},
    } for rel in plan.releases]
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {
            "name": APP_NAME,
            "namespace": ARGOCD_NAMESPACE,
            # Deleting the Application deletes what it created, except objects marked Delete=false (the claims).
            "finalizers": ["resources-finalizer.argocd.argoproj.io"],
        },
        "spec": {
            "project": "default",
            "destination": {"server": "https://kubernetes.default.svc", "namespace": plan.namespace},
            "sources": sources,
            "syncPolicy": {
                "automated": {"prune": True, "selfHeal": True},
                "syncOptions": ["CreateNamespace=true"],
                "retry": {"limit": 5, "backoff": {"duration": "10s", "factor": 2, "maxDuration": "5m"}},
            },
        },
    }


def repository_secret(plan: BundlePlan) -> dict[str, Any]:
    """Argo CD repository declaration for the OCI registry (add credentials for a private registry)."""
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": REPO_SECRET, "namespace": ARGOCD_NAMESPACE,
                     "labels": {"argocd.argoproj.io/secret-type": "repository"}},
        "type": "Opaque",
        "stringData": {"name": REPO_SECRET, "type": "helm", "url": plan.chart_registry, "enableOCI": "true"},
    }


def emit(plan: BundlePlan) -> Emitted:
    _check_keys(plan)
    files = (
        File("argocd/repository.yaml", "objects", docs=(repository_secret(plan),)),
        File("argocd/application.yaml", "objects", docs=(application(plan),)),
    )
    pre, main = plan.pre, plan.main
    push = "\n".join(f"helm push {r.archive} oci://{plan.chart_registry}" for r in plan.releases)
    guide = Guide(
        title="Argo CD",
        prerequisites=(
            "Argo CD 2.8 or newer (multi-source Applications) managing the target cluster as "
            "`https://kubernetes.default.svc`, with the `default` AppProject allowing it.",
            f"The OCI registry `{plan.chart_registry}`, writable by you and readable by Argo CD "
            f"(for a private registry add `username`/`password` to `argocd/repository.yaml`).",
        ),
        deploy=(
            "Push the two packaged charts, then create the repository declaration and the Application:\n\n"
            f"```sh\nsha256sum --check checksums.txt\n{push}\n"
            f"kubectl apply --namespace {ARGOCD_NAMESPACE} -f argocd/repository.yaml -f argocd/application.yaml\n"
            f"kubectl get application --namespace {ARGOCD_NAMESPACE} {APP_NAME} --watch\n```\n\n"
            f"Application `{APP_NAME}` has two sources in install order, `{pre.chart}` {pre.version} "
            f"(release `{pre.name}`) and `{main.chart}` {main.version} (release `{main.name}`), both with the "
            "bundle's values inline (`helm.valuesObject`)."
        ),
        remove=(
            f"```sh\nkubectl delete application --namespace {ARGOCD_NAMESPACE} {APP_NAME}\n```\n\n"
            "The finalizer `resources-finalizer.argocd.argoproj.io` deletes what the Application created; the "
            "claims carry `argocd.argoproj.io/sync-options: Delete=false,Prune=false` and stay. "
            + kept_claims_markdown(plan)
        ),
        why=(
            "**Choice: one Application, two sources, one sync wave.** Argo CD starts a sync wave only when "
            "every resource of the previous wave is Healthy, and a PersistentVolumeClaim is Healthy only when "
            "Bound. Claims on a `WaitForFirstConsumer` class bind only when the first slurmd pod mounts them, "
            "so an earlier wave for the pre objects, or an app-of-apps whose parent waits for a separate pre "
            "Application, would never finish (argo-cd issue 12840). Within one wave Argo CD applies strictly in "
            "kind order, finishing each kind before the next: Secrets, ConfigMaps and PersistentVolumeClaims "
            f"(everything `{pre.chart}` renders) before custom resources (the Slinky Controller, RestApi, "
            "LoginSets and NodeSets). slinkykit checks that order for every bundle it writes. Because Argo CD "
            "renders with `helm template`, `slurmKeyRef.create` and `jwtKeyRef.create` must stay false: create "
            "those Secrets once (see *Before the first install*)."
        ),
    )
    return Emitted(files, guide)
