"""``slinkykit bundle``: a recipe turned into a deployable, validated, reproducible bundle folder.

Steps (nothing is written until every one has passed):

1. read the recipe; resolve the values, in this order, each over the previous:
   recipe values -> ``--values`` files -> ``--set`` (in order) -> ``--shared-storage-class`` ->
   ``--storage-class``;
2. check what the recipe supports (no shared storage on a recipe without ``sharedStorage``);
3. package both charts reproducibly and render each archive with ``helm template`` and the resolved
   values file (the chart's own rules and schema run here);
4. emit the deployer's files (``slinkykit.emitters``), validate every Kubernetes object (rendered and
   emitted) and the helmfile against their schemas, and say in one line per kind what had no schema;
5. write the folder atomically (a temporary sibling folder renamed into place), with ``checksums.txt``.

``--set COMPONENT:PATH=VALUE``: ``slinkyslurm`` (or ``slinky-slurm``) is the chart pair, which reads
one values file. Everything after the first ``=`` is the value, commas included. ``PATH`` is dotted;
``\\.`` is a literal dot in a key (``nodeSelector.node\\.kubernetes\\.io/instance-type``). Typing:

* under ``enroot.*`` every value is a string, as written;
* elsewhere ``true``/``false`` become booleans (unless the chart's schema says the field is text), and
  ``null`` removes the key as in Helm;
* a whole number (or decimal) becomes a number only where the charts' ``values.schema.json`` says
  the field is an integer (or number); everything else stays the string you wrote (so ``1.20``,
  ``0755``, ``yes`` and ``1e3`` are never reinterpreted).

The values reach Helm as a values file dumped by ``slinkykit.yamlio``, never through ``--set``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from . import CHARTS_DIR, MAIN_CHART, PRE_CHART, __version__, yamlio
from . import recipe as recipes
from .cli import RuleError, UsageError
from .emitters import (
    DEPLOYERS,
    BundlePlan,
    EmitError,
    File,
    GitSource,
    ObjectRef,
    Release,
    SecretRef,
    deployers,
    dig,
    render_checks,
)
from .emitters import charts as packaging
from .emitters.readme import readme
from .helm import Helm

#: ``--set`` component names that address the chart pair (one values file serves both charts).
PAIR_COMPONENTS = ("slinkyslurm", "slinky-slurm")
DEFAULT_GIT_URL = "https://git.example.com/platform/fleet.git"
DEFAULT_CHART_REGISTRY = "registry.example.com/slinkykit"
#: Files every bundle has, besides the deployer's.
VALUES_FILE = "values.yaml"
RECIPE_FILE = "recipe.yaml"
CHECKSUMS_FILE = "checksums.txt"
_INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")
_DECIMAL = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?")

Progress = Callable[[str], None]


# --------------------------------------------------------------------------- --set


@dataclass(frozen=True)
class SetValue:
    """One parsed ``--set COMPONENT:PATH=VALUE``; ``text`` is the value exactly as written."""

    path: tuple[str, ...]
    text: str
    raw: str


def parse_set(raw: str) -> SetValue:
    """Split ``COMPONENT:PATH=VALUE`` (value = everything after the first ``=``)."""
    component, sep, rest = raw.partition(":")
    if not sep or "=" in component:
        raise UsageError(f"--set {raw}: expected COMPONENT:PATH=VALUE, e.g. slinkyslurm:storage.enabled=true")
    if component not in PAIR_COMPONENTS:
        raise UsageError(f"--set {raw}: unknown component {component!r}; use slinkyslurm (the slinky-slurm chart pair)")
    path_text, eq, text = rest.partition("=")
    if not eq:
        example = f"{component}:{path_text or 'storage.enabled'}=true"
        raise UsageError(f"--set {raw}: missing '=VALUE' after the path, e.g. {example}")
    return SetValue(split_path(path_text, raw), text, raw)


def split_path(text: str, raw: str) -> tuple[str, ...]:
    """Dotted path with ``\\.`` for a literal dot; no empty keys, no list indexes."""
    if "[" in text or "]" in text:
        raise UsageError(f"--set {raw}: list indexes are not supported; set the whole list in a --values file")
    parts = [p.replace("\0", ".") for p in text.replace("\\.", "\0").split(".")]
    if not text or any(not p for p in parts):
        raise UsageError(f"--set {raw}: {text!r} is not a dotted path of keys, e.g. storage.sharedStorageClass")
    return tuple(parts)


class ValuesSchema:
    """The charts' ``values.schema.json`` files, asked which JSON types a values path accepts."""

    def __init__(self, schemas: Sequence[Mapping[str, Any]]) -> None:
        self.schemas = list(schemas)

    @classmethod
    def for_charts(cls, chart_dirs: Iterable[Path]) -> ValuesSchema:
        return cls([json.loads(p.read_text(encoding="utf-8")) for d in chart_dirs
                    if (p := d / "values.schema.json").exists()])

    def types_at(self, path: Sequence[str]) -> frozenset[str] | None:
        """JSON types accepted at ``path`` by any chart that describes it; None when none does."""
        found: set[str] = set()
        known = False
        for root in self.schemas:
            nodes: list[Mapping[str, Any]] = [root]
            for key in path:
                nodes = [child for node in nodes for child in self._children(root, node, key)]
            for node in nodes:
                types = self._types(root, node)
                if types is not None:
                    known = True
                    found |= types
        return frozenset(found) if known else None

    def _expand(self, root: Mapping[str, Any], node: Mapping[str, Any], depth: int = 0) -> list[Mapping[str, Any]]:
        if depth > 20:
            return []
        if "$ref" in node:
            ref = str(node["$ref"])
            target: Any = root
            for part in ref.removeprefix("#/").split("/") if ref.startswith("#/") else ["<remote>"]:
                target = target.get(part) if isinstance(target, Mapping) else None
            rest = {k: v for k, v in node.items() if k != "$ref"}
            out = self._expand(root, target, depth + 1) if isinstance(target, Mapping) else []
            return [*out, rest] if rest else out
        out = [node]
        for key in ("allOf", "anyOf", "oneOf"):
            for sub in node.get(key) or []:
                out += self._expand(root, sub, depth + 1)
        return out

    def _children(self, root: Mapping[str, Any], node: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
        out: list[Mapping[str, Any]] = []
        for n in self._expand(root, node):
            props = n.get("properties") or {}
            if key in props:
                out.append(props[key])
                continue
            patterns = [sub for pat, sub in (n.get("patternProperties") or {}).items() if re.search(pat, key)]
            if patterns:
                out += patterns
            elif isinstance(n.get("additionalProperties"), Mapping):
                out.append(n["additionalProperties"])
        return out

    def _types(self, root: Mapping[str, Any], node: Mapping[str, Any]) -> set[str] | None:
        types: set[str] = set()
        known = False
        for n in self._expand(root, node):
            t = n.get("type")
            if isinstance(t, str):
                types.add(t)
                known = True
            elif isinstance(t, list):
                types |= {str(x) for x in t}
                known = True
        return types if known else None


def typed_value(value: SetValue, schema: ValuesSchema) -> Any:
    """The ``--set`` value typed by the rules in the module docstring."""
    text = value.text
    if value.path[0] == "enroot":
        return text
    if text == "null":
        return None
    types = schema.types_at(value.path)
    if text in ("true", "false"):
        if types is not None and "string" in types and "boolean" not in types:
            return text
        return text == "true"
    if types and "string" not in types:
        if "integer" in types and _INTEGER.fullmatch(text):
            return int(text)
        if "number" in types and _DECIMAL.fullmatch(text):
            return int(text) if _INTEGER.fullmatch(text) else float(text)
    return text


def set_path(values: dict[str, Any], path: Sequence[str], value: Any) -> None:
    """Put ``value`` at ``path``, creating (or replacing non-mapping) intermediate levels."""
    cur = values
    for key in path[:-1]:
        nxt = cur.get(key)
        if not isinstance(nxt, dict):
            nxt = {}
            cur[key] = nxt
        cur = nxt
    cur[path[-1]] = value


# --------------------------------------------------------------------------- options and plan


@dataclass(frozen=True)
class BundleOptions:
    """Everything ``slinkykit bundle`` was asked to do."""

    recipe: Path
    output: Path
    deployer: str = "helm"
    sets: tuple[str, ...] = ()
    value_files: tuple[Path, ...] = ()
    shared_storage_class: str | None = None
    storage_class: str | None = None
    force: bool = False
    schemas: Path | None = None
    schemas_from_cluster: bool = False
    charts_dir: Path = CHARTS_DIR
    git_url: str = DEFAULT_GIT_URL
    git_branch: str = "main"
    git_path: str | None = None
    git_secret: str = ""
    chart_registry: str = DEFAULT_CHART_REGISTRY


@dataclass
class Bundle:
    """A built bundle, not yet written: file contents by relative path."""

    files: dict[str, bytes]
    executables: frozenset[str]
    plan: BundlePlan
    notes: list[str] = field(default_factory=list)


def resolve_values(recipe: recipes.Recipe, opts: BundleOptions, schema: ValuesSchema) -> dict[str, Any]:
    """Recipe values, then --values files, then --set, then the storage class options."""
    values: dict[str, Any] = recipes.deep_merge({}, recipe.values)
    for path in opts.value_files:
        try:
            doc = yamlio.load(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise UsageError(f"--values {path}: cannot read it ({exc.strerror})") from exc
        except Exception as exc:
            raise UsageError(f"--values {path}: not valid YAML ({str(exc).splitlines()[0]})") from exc
        if doc is None:
            continue
        if not isinstance(doc, Mapping):
            raise UsageError(f"--values {path}: expected a mapping of chart values at the top level")
        values = recipes.deep_merge(values, doc)
    for raw in opts.sets:
        parsed = parse_set(raw)
        set_path(values, parsed.path, typed_value(parsed, schema))
    if opts.shared_storage_class is not None:
        set_path(values, ("storage", "sharedStorageClass"), opts.shared_storage_class)
    if opts.storage_class is not None:
        set_path(values, ("controller", "persistence", "storageClassName"), opts.storage_class)
    sorted_values: dict[str, Any] = recipes.sort_mapping(values)
    return sorted_values


def check_capabilities(recipe: recipes.Recipe, values: Mapping[str, Any], opts: BundleOptions) -> None:
    """Rules of the recipe itself (the charts check theirs when rendered)."""
    if recipe.shared_storage:
        return
    what = (f"the {recipe.criteria.service} recipe ({recipe.criteria.name}) has no shared-storage support "
            "(capabilities.sharedStorage: false)")
    if dig(values, "storage", "enabled") is True:
        raise RuleError(f"storage.enabled=true: {what}; leave storage.enabled false or use a recipe for a service "
                        "with a ReadWriteMany storage class")
    if opts.shared_storage_class is not None:
        raise RuleError(f"--shared-storage-class {opts.shared_storage_class}: {what}; drop the option")


def values_text(recipe: recipes.Recipe, values: Mapping[str, Any]) -> str:
    names = " and ".join(c.chart for c in recipe.components)
    return (f"# Resolved values for {names} (one file serves both charts).\n"
            f"# Generated by slinkykit {__version__} from recipe {recipe.criteria.name}; "
            "regenerate instead of editing.\n"
            + yamlio.dump(values, sort_keys=True))


def _chart_dirs(recipe: recipes.Recipe, charts_dir: Path) -> list[Path]:
    wanted = [PRE_CHART, MAIN_CHART]
    got = [c.chart for c in recipe.components]
    if got != wanted:
        raise UsageError(f"recipe components are {got}; slinkykit bundles exactly {wanted} in that order "
                         "(regenerate the recipe with `slinkykit recipe`)")
    dirs = []
    for comp in recipe.components:
        chart_dir = charts_dir / comp.chart
        if not (chart_dir / "Chart.yaml").is_file():
            raise UsageError(f"chart {comp.chart} not found under {charts_dir}; "
                             "pass --charts DIR (the folder holding it)")
        _, version = packaging.chart_metadata(chart_dir)
        if version != comp.version:
            raise UsageError(f"recipe pins {comp.chart} {comp.version} but {chart_dir} is {version}; "
                             "regenerate the recipe with `slinkykit recipe`")
        dirs.append(chart_dir)
    return dirs


def _refs(docs: Iterable[Mapping[str, Any]]) -> tuple[ObjectRef, ...]:
    return tuple(ObjectRef(str(d.get("apiVersion", "")), str(d.get("kind", "")), str(dig(d, "metadata", "name") or ""))
                 for d in docs)


def required_secrets(main_docs: Sequence[Mapping[str, Any]]) -> tuple[SecretRef, ...]:
    """Key Secrets the rendered Controller references that no chart renders."""
    rendered = {dig(d, "metadata", "name") for d in main_docs if d.get("kind") == "Secret"}
    out = []
    for doc in main_docs:
        if doc.get("kind") != "Controller":
            continue
        for ref_field in ("slurmKeyRef", "jwtKeyRef"):
            ref = dig(doc, "spec", ref_field) or {}
            if ref.get("name") and ref["name"] not in rendered:
                out.append(SecretRef(ref_field, str(ref["name"]), str(ref.get("key", ""))))
    return tuple(out)


def effective_storage(pre_chart: Path, values: Mapping[str, Any]) -> dict[str, Any]:
    """The ``storage`` block the pre chart sees: its defaults with the resolved values over them."""
    defaults = yamlio.load((pre_chart / "values.yaml").read_text(encoding="utf-8")) or {}
    storage: dict[str, Any] = recipes.deep_merge(defaults.get("storage") or {}, values.get("storage") or {})
    return storage


def plan_registry(opts: BundleOptions) -> str:
    """The OCI registry as Argo CD wants it (``host/path``, no ``oci://``)."""
    return opts.chart_registry.removeprefix("oci://").rstrip("/")


def default_git_path(output: Path) -> str:
    """Where a Flux bundle sits in its Git repository unless --git-path says: --output when relative."""
    if output.is_absolute() or ".." in output.parts:
        return output.name
    return output.as_posix()


# --------------------------------------------------------------------------- validation


def schema_store(opts: BundleOptions) -> tuple[Any, str]:
    """The SchemaStore for --schemas / $SLINKYKIT_SCHEMAS (cluster CRDs are added by :class:`Checks`)."""
    from . import validation

    try:
        return validation.open_store(opts.schemas, from_cluster=opts.schemas_from_cluster)
    except NotADirectoryError as exc:
        raise UsageError(str(exc)) from exc


class Checks:
    """Validates groups of objects as they become available; keeps the README's summary.

    Findings are collected and raised together by :meth:`finish` (one line: the first finding and a
    count); a kind without any schema is counted as "not checked", never as valid.
    """

    def __init__(self, opts: BundleOptions, progress: Progress) -> None:
        self.store, self.source = schema_store(opts)
        self.from_cluster = opts.schemas_from_cluster
        self.progress = progress
        self.asked: set[str] = set()
        self.findings: list[str] = []
        self.total = self.checked = 0
        self.unchecked: dict[str, int] = {}
        self.lines: list[str] = []
        self.skipped: set[str] = set()

    def objects(self, objects: Sequence[Mapping[str, Any]]) -> None:
        if self.from_cluster:
            from . import validation

            validation.add_cluster_crds(self.store, objects, self.asked, progress=self.progress)
        report = self.store.validate_documents(objects)
        self.findings += [str(f) for f in report.findings]
        self.total += len(objects)
        self.checked += report.checked
        self.skipped.update(report.skipped_rules)
        for key in report.unchecked_kinds:
            self.unchecked[key] = self.unchecked.get(key, 0) + 1

    def file(self, f: File) -> None:
        if f.kind == "objects":
            self.objects(f.docs)
        elif f.kind == "helmfile":
            try:
                found = self.store.validate_helmfile(f.docs[0])
            except FileNotFoundError:
                self.lines.append(f"not checked: {f.path} (no helmfile/helmfile.json in a schema folder)")
            else:
                self.findings += [f"{f.path}: {x}" for x in found]
                if not found:
                    self.lines.append(f"{f.path} valid against helmfile.json")
        elif f.kind == "kustomize":
            self.lines.append(f"not checked: {f.path} (kustomize.config.k8s.io Kustomization; no schema)")

    def finish(self) -> list[str]:
        """Raise RuleError on any finding; else the summary lines, not-checked ones included."""
        if self.findings:
            more = f" (and {len(self.findings) - 1} more)" if len(self.findings) > 1 else ""
            raise RuleError(f"validation: {self.findings[0]}{more}")
        lines = [f"{self.checked} of {self.total} Kubernetes objects valid (core kinds: kubernetes-validate, "
                 f"strict; custom resources: {self.source})", *self.lines]
        for key, count in sorted(self.unchecked.items()):
            lines.append(f"not checked: {count} {key} object{'s' if count > 1 else ''} (no schema for this kind)")
        if self.skipped:
            lines.append(f"{len(self.skipped)} CRD CEL rules (x-kubernetes-validations) cannot be evaluated offline")
        return lines


# --------------------------------------------------------------------------- build and write


def _quiet(_: str) -> None:
    return None


def build(opts: BundleOptions, helm: Helm | None = None, progress: Progress = _quiet) -> Bundle:
    """Everything but writing: values, rules, packaging, rendering, emitting, validation."""
    if opts.deployer not in DEPLOYERS:
        raise UsageError(f"--deployer {opts.deployer}: use one of {', '.join(DEPLOYERS)}")
    for flag, value in (("--shared-storage-class", opts.shared_storage_class), ("--storage-class", opts.storage_class)):
        if value is not None and not value.strip():
            raise UsageError(f"{flag} is blank; give a storage class name (see `kubectl get storageclass`) "
                             "or drop the option")
    recipe = recipes.load(opts.recipe)
    chart_dirs = _chart_dirs(recipe, opts.charts_dir)
    values = resolve_values(recipe, opts, ValuesSchema.for_charts(chart_dirs))
    check_capabilities(recipe, values, opts)
    notes = []
    if opts.shared_storage_class is not None and dig(values, "storage", "enabled") is not True:
        notes.append("--shared-storage-class is set but storage.enabled is false, so no shared claims are created; "
                     "add --set slinkyslurm:storage.enabled=true to create them")

    vtext = values_text(recipe, values)
    archives = {d: packaging.package(d) for d in chart_dirs}
    if helm is None:
        try:
            helm = Helm.default()
        except FileNotFoundError as exc:
            raise UsageError(str(exc)) from exc
        if not helm.binary.is_file() and not shutil.which(str(helm.binary)):
            raise UsageError(f"helm binary {helm.binary} not found; set HELM_BIN to a Helm 3.8+ binary "
                             "or run ./dev setup")
    checks = Checks(opts, progress)
    placeholders = {}
    if opts.deployer == "flux" and opts.git_url == DEFAULT_GIT_URL:
        placeholders["--git-url"] = opts.git_url
    if opts.deployer == "argocd" and opts.chart_registry == DEFAULT_CHART_REGISTRY:
        placeholders["--chart-registry"] = opts.chart_registry
    plan = BundlePlan(
        recipe_name=recipe.criteria.name, criteria=recipe.criteria.as_dict(), overlays=recipe.overlays,
        deployer=opts.deployer, namespace=recipe.namespace,
        releases=tuple(Release(comp.name, comp.chart, comp.version, f"charts/{packaging.archive_name(d)}")
                       for comp, d in zip(recipe.components, chart_dirs, strict=True)),
        values=values, values_file=VALUES_FILE, recipe_file=RECIPE_FILE,
        git=GitSource(opts.git_url, opts.git_branch, opts.git_path if opts.git_path is not None
                      else default_git_path(opts.output), opts.git_secret),
        chart_registry=plan_registry(opts), placeholders=placeholders, slinkykit_version=__version__,
        storage=effective_storage(chart_dirs[0], values),
    )
    rendered: list[list[dict[str, Any]]] = []
    with tempfile.TemporaryDirectory(prefix="slinkykit-bundle-") as tmp, ThreadPoolExecutor(2) as pool:
        work = Path(tmp)
        (work / VALUES_FILE).write_text(vtext, encoding="utf-8")
        progress(f"rendering {' and '.join(c.chart for c in recipe.components)} with helm template")
        pending = []
        for rel, d in zip(plan.releases, chart_dirs, strict=True):
            path = work / packaging.archive_name(d)
            path.write_bytes(archives[d])
            pending.append(pool.submit(helm.template, path, release=rel.name, namespace=recipe.namespace,
                                       value_files=[work / VALUES_FILE]))
        # While Helm renders: the deployer's files (they do not depend on what the charts render).
        try:
            emitted = deployers()[opts.deployer](plan)
        except EmitError as exc:
            raise RuleError(str(exc)) from exc
        for f in emitted.files:
            checks.file(f)
        # Each chart's objects are validated as soon as it is rendered.
        for future in pending:
            docs = [d for d in yamlio.load_all(future.result()) if isinstance(d, dict)]
            checks.objects(docs)
            rendered.append(docs)

    plan = replace(plan, required_secrets=required_secrets(rendered[-1]),
                   releases=tuple(replace(rel, objects=_refs(docs)) for rel, docs in zip(plan.releases, rendered,
                                                                                        strict=True)))
    check = render_checks().get(opts.deployer)
    try:
        if check is not None:
            check(plan)
    except EmitError as exc:
        raise RuleError(str(exc)) from exc
    summary = checks.finish()

    files: dict[str, bytes] = {
        RECIPE_FILE: recipe.dumps().encode(),
        VALUES_FILE: vtext.encode(),
        **{rel.archive: archives[d] for rel, d in zip(plan.releases, chart_dirs, strict=True)},
    }
    listed = [File(p, "text") for p in (*files, CHECKSUMS_FILE, "README.md")] + list(emitted.files)
    for f in emitted.files:
        files[f.path] = (yamlio.dump_all(f.docs) if f.kind != "text" else f.text).encode()
    files["README.md"] = readme(plan, emitted.guide, listed, summary).encode()
    files[CHECKSUMS_FILE] = checksums(files).encode()
    executables = frozenset(f.path for f in emitted.files if f.executable)
    notes += [line for line in summary if line.startswith("not checked")]
    notes += [f"{opt} is the placeholder {value}; regenerate with the real value before deploying"
              for opt, value in sorted(placeholders.items())]
    return Bundle(files, executables, plan, notes)


def checksums(files: Mapping[str, bytes]) -> str:
    """``sha256sum`` format, sorted by path, for every file but checksums.txt itself."""
    return "".join(f"{hashlib.sha256(data).hexdigest()}  {path}\n"
                   for path, data in sorted(files.items()) if path != CHECKSUMS_FILE)


def check_output(output: Path, force: bool) -> None:
    """Refuse an --output that is not a folder, not empty (without --force) or not a bundle (even with it)."""
    if output.exists():
        if not output.is_dir():
            raise UsageError(f"--output {output}: exists and is not a folder; choose another path")
        if any(output.iterdir()):
            if not force:
                raise UsageError(f"--output {output}: folder is not empty; pass --force to replace it, "
                                 "or choose another folder")
            if not (output / CHECKSUMS_FILE).is_file():
                raise UsageError(f"--output {output}: holds files that are not a slinkykit bundle "
                                 f"(no {CHECKSUMS_FILE}); "
                                 "refusing to replace it even with --force; choose another folder")


def write(bundle: Bundle, output: Path, *, force: bool = False) -> None:
    """Write the bundle folder atomically: a sibling temporary folder, then a rename."""
    check_output(output, force)
    parent = output.absolute().parent
    parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{output.name}.", suffix=".partial", dir=parent))
    old: Path | None = None
    try:
        for rel, data in sorted(bundle.files.items()):
            path = stage / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            path.chmod(0o755 if rel in bundle.executables else 0o644)
        folders = {p for rel in bundle.files for p in (stage / rel).parents if stage in p.parents}
        for folder in sorted(folders | {stage}):
            folder.chmod(0o755)
        if output.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{output.name}.", suffix=".old", dir=parent))
            os.replace(output, old / "bundle")
        os.replace(stage, output)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        if old is not None and (old / "bundle").exists() and not output.exists():
            os.replace(old / "bundle", output)
        raise
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


# --------------------------------------------------------------------------- CLI

HELP = """\
Render, check and write a deployable bundle for the recipe: the resolved values, the recipe, both
charts packaged, a README for the operator, checksums.txt and the deployer's files.

examples:
  slinkykit bundle --recipe recipe.yaml --deployer helm --output out/eks-helm
  slinkykit bundle --recipe recipe.yaml --set slinkyslurm:storage.enabled=true \\
      --shared-storage-class efs-sc --storage-class gp3 --deployer helmfile --output out/eks-helmfile
  slinkykit bundle --recipe recipe.yaml --set slinkyslurm:enroot.env.NCCL_DEBUG_SUBSYS=INIT,NET \\
      --deployer flux --git-url https://github.com/acme/fleet.git --output clusters/gpu/slurm
  slinkykit bundle --recipe recipe.yaml --deployer argocd --chart-registry ghcr.io/acme/charts --output out/argocd

values, in order, each over the previous:
  recipe -> --values FILE... -> --set... -> --shared-storage-class -> --storage-class
--set COMPONENT:PATH=VALUE: COMPONENT is slinkyslurm (both charts); everything after the first '=' is the
value, commas included; \\. is a literal dot in a key; true/false are booleans and null removes a key
(except under enroot.*, where every value is text); numbers only where the chart schema wants one.

exit codes: 0 written, 1 a chart or recipe rule failed (nothing written), 2 usage error.
"""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "bundle", help="render, check and write a deployable bundle from a recipe", description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--recipe", required=True, type=Path, metavar="FILE", help="recipe written by `slinkykit recipe`")
    p.add_argument("--output", "-o", required=True, type=Path, metavar="DIR", help="bundle folder to create")
    p.add_argument("--deployer", default="helm", choices=DEPLOYERS, metavar="DEPLOYER",
                   help=f"how the bundle is deployed: {', '.join(DEPLOYERS)} (default: helm)")
    p.add_argument("--set", dest="sets", action="append", default=[], metavar="COMPONENT:PATH=VALUE",
                   help="set one value (repeatable), e.g. slinkyslurm:nodesets.gpu.replicas=4")
    p.add_argument("--values", "-f", dest="value_files", action="append", default=[], type=Path, metavar="FILE",
                   help="values file merged over the recipe's values (repeatable)")
    p.add_argument("--shared-storage-class", metavar="NAME",
                   help="ReadWriteMany class of the shared claims (storage.sharedStorageClass)")
    p.add_argument("--storage-class", metavar="NAME",
                   help="generic ReadWriteOnce class (controller.persistence.storageClassName); "
                        "never used for shared claims")
    p.add_argument("--force", action="store_true", help="replace an existing bundle folder")
    p.add_argument("--schemas", type=Path, metavar="DIR",
                   help="schema folder (slinky/, flux/, argocd/, helmfile/) for custom resources and helmfile.yaml "
                        "(default: $SLINKYKIT_SCHEMAS)")
    p.add_argument("--schemas-from-cluster", action="store_true",
                   help="also read the CRDs of the emitted kinds from the current cluster "
                        "(kubectl get crd NAME -o yaml)")
    p.add_argument("--charts", dest="charts_dir", type=Path, default=CHARTS_DIR, metavar="DIR",
                   help="folder holding the slinky-slurm-pre and slinky-slurm charts (default: the project's charts/)")
    g = p.add_argument_group("flux")
    g.add_argument("--git-url", default=DEFAULT_GIT_URL, metavar="URL",
                   help="Git repository the bundle is committed to (default: a placeholder)")
    g.add_argument("--git-branch", default="main", metavar="BRANCH", help="branch Flux follows (default: main)")
    g.add_argument("--git-path", metavar="PATH", help="folder of the bundle in that repository (default: --output)")
    g.add_argument("--git-secret", default="", metavar="NAME", help="Secret in flux-system with the Git credentials")
    a = p.add_argument_group("argocd")
    a.add_argument("--chart-registry", default=DEFAULT_CHART_REGISTRY, metavar="HOST/PATH",
                   help="OCI registry Argo CD pulls the packaged charts from (default: a placeholder)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    return p


def options(args: argparse.Namespace) -> BundleOptions:
    return BundleOptions(
        recipe=args.recipe, output=args.output, deployer=args.deployer, sets=tuple(args.sets),
        value_files=tuple(args.value_files), shared_storage_class=args.shared_storage_class,
        storage_class=args.storage_class, force=args.force, schemas=args.schemas,
        schemas_from_cluster=args.schemas_from_cluster, charts_dir=args.charts_dir, git_url=args.git_url,
        git_branch=args.git_branch, git_path=args.git_path, git_secret=args.git_secret,
        chart_registry=args.chart_registry)


def run(args: argparse.Namespace) -> int:
    def progress(line: str) -> None:
        if not args.quiet:
            print(f"slinkykit bundle: {line}", file=sys.stderr)

    opts = options(args)
    check_output(opts.output, opts.force)  # before the slow steps; write() checks again
    bundle = build(opts, progress=progress)
    write(bundle, opts.output, force=opts.force)
    for note in bundle.notes:  # warnings: printed even with --quiet
        print(f"slinkykit bundle: {note}", file=sys.stderr)
    out = opts.output
    nxt = {"helm": f"run {out / 'deploy.sh'}",
           "helmfile": f"run helmfile apply in {out}",
           "flux": f"commit {out} to {opts.git_url}, then kubectl apply -k {out / 'flux'}",
           "argocd": f"push {out / 'charts'}/*.tgz to {plan_registry(opts)}, then kubectl apply -f {out / 'argocd'}"}
    print(f"bundle written to {out} ({opts.deployer}, {len(bundle.files)} files); read {out / 'README.md'}, "
          f"then {nxt[opts.deployer]}")
    return 0

