"""Recipes: cluster criteria turned into versioned data for ``slinkykit bundle``.

A recipe is assembled from overlay files under ``recipes/`` (shipped with the package), applied
in this order, each deep-merged over the result so far:

1. ``base.yaml``
2. ``service/<service>.yaml``
3. ``accelerator/<accelerator>.yaml``
4. ``os/<os>.yaml``
5. ``intent/<intent>.yaml``

Right after an overlay, its ``when.<criterion>.<value>`` sections that match the criteria are
applied in file order (``accelerator/h100.yaml#when.service.eks`` holds the EKS instance type of
an H100 node). A matching section with ``unsupported: MESSAGE`` stops the recipe with that message.

Merge rules (:func:`deep_merge`): mappings merge key by key; lists, scalars and ``null`` replace.
An overlay may set ``description``, ``namespace``, ``components``, ``capabilities``, ``values``
and ``when``; nothing else.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import yamlio
from .cli import RuleError, UsageError

API_VERSION = "slinkykit.dev/v1alpha1"
KIND = "Recipe"
RECIPES_DIR = Path(__file__).resolve().parent / "recipes"
#: Criteria with an overlay folder, in the order their overlays apply (after base.yaml).
OVERLAY_CRITERIA = ("service", "accelerator", "os", "intent")
#: The only platform slinkykit builds recipes for.
PLATFORMS = ("slurm",)
_OVERLAY_KEYS = frozenset({"description", "namespace", "components", "capabilities", "values", "when"})
_SECTION_KEYS = frozenset({"capabilities", "values", "unsupported"})


class RecipeError(RuleError):
    """The criteria give no valid recipe (exit code 1); the message names the value and the fix."""


class RecipeFileError(UsageError):
    """A recipe file cannot be read or is not a recipe (exit code 2)."""


# --------------------------------------------------------------------------- model


@dataclass(frozen=True)
class Criteria:
    """What the operator's cluster is."""

    service: str
    accelerator: str
    os: str
    intent: str
    platform: str = "slurm"

    @property
    def name(self) -> str:
        return f"{self.service}-{self.accelerator}-{self.os}-{self.intent}"

    def as_dict(self) -> dict[str, str]:
        return {"service": self.service, "accelerator": self.accelerator, "os": self.os,
                "intent": self.intent, "platform": self.platform}


@dataclass(frozen=True)
class Component:
    """One chart of the recipe, installed as a Helm release of the same name."""

    name: str
    chart: str
    version: str

    def as_dict(self) -> dict[str, str]:
        return {"name": self.name, "chart": self.chart, "version": self.version}


@dataclass(frozen=True)
class Recipe:
    """A recipe document (``apiVersion: slinkykit.dev/v1alpha1``, ``kind: Recipe``)."""

    criteria: Criteria
    overlays: tuple[str, ...]
    namespace: str
    components: tuple[Component, ...]
    capabilities: Mapping[str, Any] = field(default_factory=dict)
    values: Mapping[str, Any] = field(default_factory=dict)
    description: str = ""

    @property
    def shared_storage(self) -> bool:
        """Whether the target can provide ReadWriteMany claims (``capabilities.sharedStorage``)."""
        return bool(self.capabilities.get("sharedStorage", False))

    def to_document(self) -> dict[str, Any]:
        return {
            "apiVersion": API_VERSION,
            "kind": KIND,
            "metadata": {"name": self.criteria.name},
            "description": self.description,
            "criteria": self.criteria.as_dict(),
            "overlays": list(self.overlays),
            "namespace": self.namespace,
            "components": [c.as_dict() for c in self.components],
            "capabilities": sort_mapping(self.capabilities),
            "values": sort_mapping(self.values),
        }

    def dumps(self) -> str:
        return yamlio.dump(self.to_document())

    @classmethod
    def from_document(cls, doc: Any, source: str = "recipe") -> Recipe:
        """Read a recipe document; a malformed one raises :class:`RecipeFileError` naming the field."""
        if not isinstance(doc, Mapping):
            raise RecipeFileError(f"{source}: not a recipe (expected a mapping with apiVersion {API_VERSION}, "
                                  f"kind {KIND})")
        if doc.get("apiVersion") != API_VERSION or doc.get("kind") != KIND:
            raise RecipeFileError(f"{source}: apiVersion/kind is {doc.get('apiVersion')!r}/{doc.get('kind')!r}; "
                              f"expected {API_VERSION}/{KIND} (regenerate it with `slinkykit recipe`)")
        crit = _mapping(doc, "criteria", source)
        missing = [k for k in (*OVERLAY_CRITERIA, "platform") if not isinstance(crit.get(k), str)]
        if missing:
            raise RecipeFileError(f"{source}: criteria.{missing[0]} is missing; "
                                  "regenerate the recipe with `slinkykit recipe`")
        criteria = Criteria(crit["service"], crit["accelerator"], crit["os"], crit["intent"], crit["platform"])
        if criteria.platform not in PLATFORMS:
            raise RecipeFileError(f"{source}: criteria.platform {criteria.platform!r} is not supported; use slurm")
        raw_components = doc.get("components")
        if not isinstance(raw_components, list) or not raw_components:
            raise RecipeFileError(f"{source}: components must be a non-empty list of {{name, chart, version}}")
        components = []
        for i, c in enumerate(raw_components):
            fields = ("name", "chart", "version")
            if not isinstance(c, Mapping) or not all(isinstance(c.get(k), str) and c.get(k) for k in fields):
                raise RecipeFileError(f"{source}: components[{i}] needs string name, chart and version")
            components.append(Component(c["name"], c["chart"], c["version"]))
        namespace = doc.get("namespace")
        if not isinstance(namespace, str) or not namespace:
            raise RecipeFileError(f"{source}: namespace must be a non-empty string")
        overlays = doc.get("overlays") or []
        if not isinstance(overlays, list) or not all(isinstance(o, str) for o in overlays):
            raise RecipeFileError(f"{source}: overlays must be a list of overlay file names")
        description = doc.get("description") or ""
        return cls(criteria=criteria, overlays=tuple(overlays), namespace=namespace, components=tuple(components),
                   capabilities=dict(_mapping(doc, "capabilities", source, required=False)),
                   values=dict(_mapping(doc, "values", source, required=False)), description=str(description))


def _mapping(doc: Mapping[str, Any], key: str, source: str, *, required: bool = True) -> Mapping[str, Any]:
    value = doc.get(key)
    if value is None and not required:
        return {}
    if not isinstance(value, Mapping):
        raise RecipeFileError(f"{source}: {key} must be a mapping")
    return value


# --------------------------------------------------------------------------- merging


def deep_merge(base: Mapping[str, Any], overlay: Mapping[str, Any]) -> dict[str, Any]:
    """``overlay`` over ``base`` (a new object): mappings merge key by key; lists, scalars and null replace."""
    out: dict[str, Any] = _copy(base)
    for key, value in overlay.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = _copy(value)
    return out


def _copy(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def sort_mapping(value: Any) -> Any:
    """Copy with every mapping's keys sorted (lists keep their order): a canonical form for data."""
    if isinstance(value, Mapping):
        return {k: sort_mapping(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [sort_mapping(v) for v in value]
    return value


# --------------------------------------------------------------------------- overlays


def choices(criterion: str, recipes_dir: Path = RECIPES_DIR) -> list[str]:
    """Supported values of a criterion: the overlay files of its folder."""
    return sorted(p.stem for p in (recipes_dir / criterion).glob("*.yaml"))


def _load_overlay(recipes_dir: Path, rel: str) -> dict[str, Any]:
    doc = yamlio.load((recipes_dir / rel).read_text(encoding="utf-8")) or {}
    if not isinstance(doc, Mapping):
        raise RecipeError(f"recipes/{rel}: an overlay must be a mapping")
    unknown = sorted(set(doc) - _OVERLAY_KEYS)
    if unknown:
        allowed = ", ".join(sorted(_OVERLAY_KEYS))
        raise RecipeError(f"recipes/{rel}: unknown key {unknown[0]!r}; an overlay may set {allowed}")
    return dict(doc)


def build(criteria: Criteria, recipes_dir: Path = RECIPES_DIR) -> Recipe:
    """Assemble the recipe for ``criteria`` from the overlay files (order in the module docstring)."""
    if criteria.platform not in PLATFORMS:
        raise RecipeError(f"--platform {criteria.platform}: not supported; the supported platform is slurm")
    files = ["base.yaml"]
    for criterion in OVERLAY_CRITERIA:
        value = getattr(criteria, criterion)
        if value not in choices(criterion, recipes_dir):
            raise RecipeError(f"--{criterion} {value}: no overlay recipes/{criterion}/{value}.yaml; "
                              f"use one of {', '.join(choices(criterion, recipes_dir))}")
        files.append(f"{criterion}/{value}.yaml")
    state: dict[str, Any] = {"description": [], "namespace": "", "components": [], "capabilities": {}, "values": {}}
    applied: list[str] = []
    selected = criteria.as_dict()
    for rel in files:
        overlay = _load_overlay(recipes_dir, rel)
        _apply(state, overlay, rel)
        applied.append(rel)
        for criterion, sections in (overlay.get("when") or {}).items():
            section = (sections or {}).get(selected.get(criterion, ""))
            if section is None:
                continue
            where = f"{rel}#when.{criterion}.{selected[criterion]}"
            if not isinstance(section, Mapping) or set(section) - _SECTION_KEYS:
                raise RecipeError(f"recipes/{where}: a when section may set only {', '.join(sorted(_SECTION_KEYS))}")
            if "unsupported" in section:
                owner, _, value = rel.removesuffix(".yaml").partition("/")
                why = f"--{criterion} {selected[criterion]}: {section['unsupported']}"
                raise RecipeError(f"--{owner} {value} with {why}" if value else why)
            _apply(state, section, where)
            applied.append(where)
    if not state["namespace"] or not state["components"]:
        raise RecipeError("recipes/base.yaml: must set namespace and components")
    components = tuple(Component(str(c["name"]), str(c["chart"]), str(c["version"])) for c in state["components"])
    return Recipe(criteria=criteria, overlays=tuple(applied), namespace=state["namespace"], components=components,
                  capabilities=state["capabilities"], values=state["values"],
                  description="; ".join(state["description"]))


def _apply(state: dict[str, Any], overlay: Mapping[str, Any], where: str) -> None:
    if overlay.get("description"):
        state["description"].append(str(overlay["description"]))
    if "namespace" in overlay:
        state["namespace"] = overlay["namespace"]
    if "components" in overlay:
        state["components"] = list(overlay["components"])
    for key in ("capabilities", "values"):
        value = overlay.get(key)
        if value is None:
            continue
        if not isinstance(value, Mapping):
            raise RecipeError(f"recipes/{where}: {key} must be a mapping")
        state[key] = deep_merge(state[key], value)


def load(path: Path) -> Recipe:
    """Read a recipe file written by ``slinkykit recipe`` (or edited by hand)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RecipeFileError(f"--recipe {path}: cannot read it ({exc.strerror}); "
                              "pass a file written by `slinkykit recipe`") from exc
    try:
        doc = yamlio.load(text)
    except Exception as exc:  # yaml.YAMLError and friends: report one line
        raise RecipeFileError(f"--recipe {path}: not valid YAML ({str(exc).splitlines()[0]})") from exc
    return Recipe.from_document(doc, source=str(path))


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# --------------------------------------------------------------------------- CLI

HELP = """\
Assemble a recipe from overlay files (base, service, accelerator, os, intent) and write it.

examples:
  slinkykit recipe --service eks --accelerator h100 --os ubuntu --intent training --platform slurm --output recipe.yaml
  slinkykit recipe --service kind --accelerator l40s --os ubuntu --intent inference --output kind.recipe.yaml
  slinkykit recipe --service gke --accelerator b200 --os rhel --intent training      # prints to stdout
"""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "recipe", help="turn cluster criteria into a recipe file", description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    for criterion, what in (("service", "Kubernetes service"), ("accelerator", "GPU model"),
                            ("os", "node image family"), ("intent", "workload")):
        opts = choices(criterion)
        parser.add_argument(f"--{criterion}", required=True, choices=opts, metavar=criterion.upper(),
                            help=f"{what}: {', '.join(opts)}")
    parser.add_argument("--platform", default="slurm", choices=PLATFORMS, metavar="PLATFORM",
                        help="workload platform: slurm (the only one supported)")
    parser.add_argument("--output", "-o", type=Path, metavar="FILE",
                        help="where to write the recipe (default: standard output)")
    return parser


def run(args: argparse.Namespace) -> int:
    criteria = Criteria(args.service, args.accelerator, args.os, args.intent, args.platform)
    recipe = build(criteria)
    text = recipe.dumps()
    if args.output is None or str(args.output) == "-":
        sys.stdout.write(text)
        return 0
    write_text_atomic(args.output, text)
    print(f"wrote {args.output} ({criteria.name}: {', '.join(recipe.overlays)})", file=sys.stderr)
    return 0

