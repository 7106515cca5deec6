"""Emitters: pure functions from one :class:`BundlePlan` to the files of a bundle.

An emitter returns data (:class:`File` objects holding YAML documents or text), never writes,
never runs anything, and gives the same output for the same plan. ``slinkykit.bundle`` validates
the YAML documents, dumps them through ``slinkykit.yamlio`` and writes everything at once.

One module per deployer (``helm``, ``helmfile``, ``flux``, ``argocd``) exposes
``emit(plan) -> Emitted`` and may expose ``check(plan)``; ``readme`` turns the plan and the
deployer's :class:`Guide` into the operator's README.

What the charts render (``Release.objects``, ``BundlePlan.required_secrets``) is not known when
``emit`` runs: ``slinkykit.bundle`` emits and validates the deployer's files while Helm renders, then
fills those fields in for ``check(plan)`` (rules about rendered objects) and the README.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

#: What a file holds, which decides how it is dumped and validated:
#: ``objects``   Kubernetes objects (validated against core schemas or CRDs),
#: ``helmfile``  a helmfile.yaml (validated against helmfile.json),
#: ``kustomize`` a kustomize.config.k8s.io Kustomization file (no schema: reported as not checked),
#: ``text``      anything else (README, scripts; scripts are checked with shellcheck by the tests).
FileKind = Literal["objects", "helmfile", "kustomize", "text"]


class EmitError(ValueError):
    """The plan cannot be expressed for this deployer; the message names the value and the fix."""


@dataclass(frozen=True)
class File:
    """One file of the bundle, relative to the bundle folder."""

    path: str
    kind: FileKind
    docs: tuple[Mapping[str, Any], ...] = ()
    text: str = ""
    executable: bool = False


@dataclass(frozen=True)
class ObjectRef:
    """A rendered object, as the README lists it."""

    api_version: str
    kind: str
    name: str


@dataclass(frozen=True)
class Release:
    """One chart of the pair, installed as a Helm release of the same name."""

    name: str
    chart: str
    version: str
    #: Path of the packaged chart inside the bundle, e.g. ``charts/slinky-slurm-pre-0.1.0.tgz``.
    archive: str
    #: What the chart renders with the bundle's values, in render order.
    objects: tuple[ObjectRef, ...] = ()


@dataclass(frozen=True)
class SecretRef:
    """A Secret the rendered Controller references but no chart creates: the operator creates it once."""

    field: str
    name: str
    key: str


@dataclass(frozen=True)
class GitSource:
    """Where a Flux bundle is committed: repository URL, branch, folder of the bundle, credentials."""

    url: str
    branch: str
    path: str
    secret: str = ""


@dataclass(frozen=True)
class BundlePlan:
    """Everything an emitter needs, resolved and checked."""

    recipe_name: str
    criteria: Mapping[str, str]
    overlays: tuple[str, ...]
    deployer: str
    namespace: str
    #: ``slinky-slurm-pre`` first, ``slinky-slurm`` second: install order (removal is the reverse).
    releases: tuple[Release, ...]
    #: Resolved chart values (one values file serves both charts), keys sorted.
    values: Mapping[str, Any]
    values_file: str = "values.yaml"
    recipe_file: str = "recipe.yaml"
    git: GitSource = field(default_factory=lambda: GitSource("", "main", "."))
    #: OCI registry (``host/path``) Argo CD pulls the packaged charts from.
    chart_registry: str = ""
    #: Placeholders the operator still has to replace (option name -> value used).
    placeholders: Mapping[str, str] = field(default_factory=dict)
    #: Secrets to create before the first install (referenced by the Controller, rendered by no chart).
    required_secrets: tuple[SecretRef, ...] = ()
    #: The effective ``storage`` block: the pre chart's defaults with the resolved values over them.
    storage: Mapping[str, Any] = field(default_factory=dict)
    slinkykit_version: str = ""

    @property
    def pre(self) -> Release:
        return self.releases[0]

    @property
    def main(self) -> Release:
        return self.releases[-1]

    @property
    def storage_enabled(self) -> bool:
        return self.storage.get("enabled") is True

    @property
    def claim_names(self) -> tuple[str, ...]:
        """Names of the shared claims (created only with storage enabled; kept by every removal)."""
        names = (dig(self.storage, key, "name") for key in ("home", "data"))
        return tuple(str(name) for name in names if name)


@dataclass(frozen=True)
class Guide:
    """A deployer's part of the README (Markdown)."""

    title: str
    prerequisites: tuple[str, ...]
    deploy: str
    remove: str
    why: str = ""


@dataclass(frozen=True)
class Emitted:
    """What a deployer emitter returns."""

    files: tuple[File, ...]
    guide: Guide


Emitter = Callable[[BundlePlan], Emitted]


def dig(data: Mapping[str, Any], *keys: str) -> Any:
    """``data[k1][k2]...``, or None where a level is missing or not a mapping."""
    cur: Any = data
    for key in keys:
        if not isinstance(cur, Mapping):
            return None
        cur = cur.get(key)
    return cur


def deployers() -> dict[str, Emitter]:
    """Deployer name -> emitter, in ``--help`` order."""
    from . import argocd, flux, helm, helmfile

    return {"helm": helm.emit, "helmfile": helmfile.emit, "flux": flux.emit, "argocd": argocd.emit}


def render_checks() -> dict[str, Callable[[BundlePlan], None]]:
    """Deployer name -> rule about the rendered objects (raises :class:`EmitError`), where one exists."""
    from . import argocd

    return {"argocd": argocd.check}


DEPLOYERS = ("helm", "helmfile", "flux", "argocd")
