"""Conformance invariants of a slinky-slurm deployment, one function each.

Shared by ``slinkykit validate``, the pytest plugin and our own tests. Each invariant takes the
rendered objects of both releases (:class:`Rendered`) and returns findings; none reads values
directly: what the pre release promises (claims and where to mount them, the Enroot ConfigMap) is
read from the objects it renders.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import MAIN_CHART, NAMESPACE, PRE_CHART
from .helm import Helm, HelmError, parse_documents, resolve_chart
from .validation import SchemaStore

ENROOT_CONFIGMAP = "slinky-slurm-enroot-config"
#: The two Enroot files: ConfigMap key -> path in the login and slurmd containers.
ENROOT_FILES = {
    "enroot.conf": "/etc/enroot/enroot.conf",
    "99-aicr-defaults.env": "/etc/enroot/environ.d/99-aicr-defaults.env",
}
MOUNT_PATH_ANNOTATION = "slinkykit.io/mount-path"
RETENTION_ANNOTATIONS = {
    "helm.sh/resource-policy": "keep",
    "argocd.argoproj.io/sync-options": "Delete=false,Prune=false",
}
#: The container of each set kind that must carry our mounts, and the values key of such sets.
SET_KINDS = {"LoginSet": ("login", "loginsets", "-login-"), "NodeSet": ("slurmd", "nodesets", "-worker-")}
_ENV_LINE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=[^\x00-\x1f\x7f]*$")


@dataclass(frozen=True, order=True)
class Violation:
    """An invariant that does not hold: which one, where (values path or object), what to do."""

    invariant: str
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message} [{self.invariant}]"


@dataclass(frozen=True)
class Rendered:
    """Objects rendered by the pre release and the main release from one values file."""

    pre: list[dict[str, Any]]
    main: list[dict[str, Any]]
    pre_text: str = ""
    main_text: str = ""

    @property
    def all(self) -> list[dict[str, Any]]:
        return [*self.pre, *self.main]


@dataclass(frozen=True)
class SetView:
    """One LoginSet or NodeSet: its values path, its container, its pod volumes."""

    obj: Mapping[str, Any]
    where: str
    container: Mapping[str, Any]
    volumes: list[Mapping[str, Any]]

    @property
    def mounts(self) -> list[Mapping[str, Any]]:
        return list(self.container.get("volumeMounts") or [])


def sets(objs: Sequence[Mapping[str, Any]]) -> Iterator[SetView]:
    """Every LoginSet and NodeSet, with the container that carries our mounts."""
    for obj in objs:
        if obj.get("kind") not in SET_KINDS:
            continue
        container_key, values_key, infix = SET_KINDS[obj["kind"]]
        name = obj.get("metadata", {}).get("name", "")
        set_key = name.split(infix, 1)[1] if infix in name else name
        spec = obj.get("spec") or {}
        pod = (spec.get("template") or {}).get("spec") or {}
        volumes = list(pod.get("volumes") or [])
        # a NodeSet's claim templates become pod volumes of the same name
        volumes += [{"name": (t.get("metadata") or {}).get("name"), "persistentVolumeClaim": {"claimTemplate": True}}
                    for t in spec.get("volumeClaimTemplates") or [] if isinstance(t, Mapping)]
        yield SetView(obj, f"{values_key}.{set_key}", spec.get(container_key) or {}, volumes)


def _by_kind(objs: Sequence[Mapping[str, Any]], kind: str) -> list[Mapping[str, Any]]:
    return [o for o in objs if o.get("kind") == kind]


def _volume(view: SetView, name: str) -> Mapping[str, Any] | None:
    return next((v for v in view.volumes if v.get("name") == name), None)


# --- invariants ---------------------------------------------------------------------------------

def enroot_files_mounted(r: Rendered) -> list[Violation]:
    """Every set mounts both Enroot files read-only (subPath) from the Enroot ConfigMap."""
    out = []
    for view in sets(r.main):
        for key, path in ENROOT_FILES.items():
            found = [m for m in view.mounts if m.get("mountPath") == path]
            if len(found) != 1:
                out.append(Violation("enroot-files-mounted", view.where,
                                     f"{len(found)} mounts at {path}; expected exactly one (Enroot file {key})"))
                continue
            m = found[0]
            vol = _volume(view, str(m.get("name"))) or {}
            source = (vol.get("configMap") or {}).get("name")
            if m.get("subPath") != key or m.get("readOnly") is not True or source != ENROOT_CONFIGMAP:
                out.append(Violation("enroot-files-mounted", view.where,
                                     f"{path} must be mounted readOnly with subPath {key} from ConfigMap "
                                     f"{ENROOT_CONFIGMAP}; got subPath={m.get('subPath')!r} "
                                     f"readOnly={m.get('readOnly')!r} configMap={source!r}"))
    return out


def shared_claims_mounted(r: Rendered) -> list[Violation]:
    """With storage on, every set mounts each shared claim at the path the pre release declares."""
    out = []
    claims = _by_kind(r.pre, "PersistentVolumeClaim")
    for view in sets(r.main):
        for claim in claims:
            name = claim["metadata"]["name"]
            path = claim["metadata"].get("annotations", {}).get(MOUNT_PATH_ANNOTATION)
            found = [m for m in view.mounts if m.get("mountPath") == path]
            vols = [(_volume(view, str(m.get("name"))) or {}) for m in found]
            if len(found) != 1 or (vols[0].get("persistentVolumeClaim") or {}).get("claimName") != name:
                out.append(Violation("shared-claims-mounted", view.where,
                                     f"claim {name} is not mounted exactly once at {path}"))
        if not claims:
            stray = [v["name"] for v in view.volumes if v.get("persistentVolumeClaim")
                     and v["persistentVolumeClaim"].get("claimName") in ("shared-home", "shared-data")]
            if stray:
                out.append(Violation("shared-claims-mounted", view.where,
                                     f"mounts shared claims {stray} while storage is disabled (no claim exists)"))
    return out


def mounts_resolve(r: Rendered) -> list[Violation]:
    """Every volumeMount of a set's container names a volume of its pod."""
    out = []
    for view in sets(r.main):
        names = {v.get("name") for v in view.volumes}
        for i, m in enumerate(view.mounts):
            if m.get("name") not in names:
                out.append(Violation("mounts-resolve", f"{view.where}.volumeMounts[{i}]",
                                     f"mount {m.get('name')!r} at {m.get('mountPath')} has no volume of that name"))
    return out


def no_duplicates(r: Rendered) -> list[Violation]:
    """No set has two volumes of one name or two mounts at one path."""
    out = []
    for view in sets(r.main):
        for what, items, key in (("volume name", view.volumes, "name"), ("mount path", view.mounts, "mountPath")):
            seen: set[Any] = set()
            for item in items:
                value = item.get(key)
                if value in seen:
                    out.append(Violation("no-duplicates", view.where, f"duplicate {what} {value!r}"))
                seen.add(value)
    return out


def shared_claims_safe(r: Rendered) -> list[Violation]:
    """Shared claims are RWX, retained by Helm and Argo CD, and carry no Helm ownership metadata."""
    out = []
    for claim in _by_kind(r.pre, "PersistentVolumeClaim"):
        meta = claim["metadata"]
        where = f"PersistentVolumeClaim/{meta['name']}"
        if claim.get("spec", {}).get("accessModes") != ["ReadWriteMany"]:
            out.append(Violation("shared-claims-safe", where, "accessModes must be [ReadWriteMany]"))
        annotations = meta.get("annotations") or {}
        for k, v in RETENTION_ANNOTATIONS.items():
            if annotations.get(k) != v:
                out.append(Violation("shared-claims-safe", where, f"annotation {k}: {v} is missing"))
        owned = [k for k in annotations if k.startswith("meta.helm.sh/")]
        owned += [k for k in (meta.get("labels") or {}) if k in ("app.kubernetes.io/managed-by", "helm.sh/chart")]
        if owned:
            out.append(Violation("shared-claims-safe", where, f"carries Helm ownership metadata {sorted(owned)}"))
    for obj in _by_kind(r.main, "PersistentVolumeClaim"):
        if obj["metadata"]["name"] in {c["metadata"]["name"] for c in _by_kind(r.pre, "PersistentVolumeClaim")}:
            out.append(Violation("shared-claims-safe", f"PersistentVolumeClaim/{obj['metadata']['name']}",
                                 "rendered by slinky-slurm too; only slinky-slurm-pre owns the shared claims"))
    return out


def configmap_consistent(r: Rendered) -> list[Violation]:
    """The sets mount the ConfigMap the pre release renders, and only the pre release renders it."""
    out = []
    pre_cms = {o["metadata"]["name"] for o in _by_kind(r.pre, "ConfigMap")}
    if ENROOT_CONFIGMAP not in pre_cms:
        out.append(Violation("configmap-consistent", f"ConfigMap/{ENROOT_CONFIGMAP}", "not rendered by the pre chart"))
    if ENROOT_CONFIGMAP in {o["metadata"]["name"] for o in _by_kind(r.main, "ConfigMap")}:
        out.append(Violation("configmap-consistent", f"ConfigMap/{ENROOT_CONFIGMAP}",
                             "rendered by slinky-slurm too; only slinky-slurm-pre owns it"))
    for view in sets(r.main):
        for vol in view.volumes:
            name = (vol.get("configMap") or {}).get("name")
            if name and name.startswith("slinky-slurm-enroot") and name not in pre_cms:
                out.append(Violation("configmap-consistent", view.where,
                                     f"mounts ConfigMap {name}, which the pre release does not render"))
    return out


def enroot_file_lines(r: Rendered) -> list[Violation]:
    """Each Enroot file is sorted, unique, one valid KEY=VALUE per line, ending in a newline."""
    out = []
    for cm in _by_kind(r.pre, "ConfigMap"):
        if cm["metadata"]["name"] != ENROOT_CONFIGMAP:
            continue
        data = cm.get("data") or {}
        if sorted(data) != sorted(ENROOT_FILES):
            out.append(Violation("enroot-file-lines", f"ConfigMap/{ENROOT_CONFIGMAP}",
                                 f"data keys {sorted(data)}; expected {sorted(ENROOT_FILES)}"))
        for key, text in data.items():
            section = "enroot.config" if key == "enroot.conf" else "enroot.env"
            if text and not text.endswith("\n"):
                out.append(Violation("enroot-file-lines", section, f"{key} does not end in a newline"))
            lines = text.split("\n")[:-1] if text else []
            keys = [ln.split("=", 1)[0] for ln in lines]
            for ln in lines:
                if not _ENV_LINE.match(ln):
                    out.append(Violation("enroot-file-lines", section, f"{key}: invalid line {ln!r}"))
            if keys != sorted(set(keys)):
                out.append(Violation("enroot-file-lines", section, f"{key}: keys not sorted and unique"))
            if key == "99-aicr-defaults.env" and any(k.startswith("ENROOT_") for k in keys):
                out.append(Violation("enroot-file-lines", section, f"{key}: ENROOT_ keys are dropped by Enroot"))
    return out


Invariant = Callable[[Rendered], list[Violation]]

#: Every invariant, in report order.
INVARIANTS: tuple[Invariant, ...] = (
    enroot_files_mounted,
    shared_claims_mounted,
    mounts_resolve,
    no_duplicates,
    shared_claims_safe,
    configmap_consistent,
    enroot_file_lines,
)


def check(r: Rendered) -> list[Violation]:
    """All invariants over one rendering."""
    return [v for inv in INVARIANTS for v in inv(r)]


# --- rendering and the full check ---------------------------------------------------------------

def render_pair(helm: Helm, values: Sequence[Mapping[str, Any]], *, value_files: Sequence[Path] = (),
                set_values: Sequence[str] = (), namespace: str = NAMESPACE) -> Rendered:
    """Render both charts with the same values, as the deployers install them (files, then values, then sets)."""
    texts = [helm.template(resolve_chart(chart), values, release=chart, namespace=namespace,
                           value_files=value_files, set_values=set_values)
             for chart in (PRE_CHART, MAIN_CHART)]
    return Rendered(parse_documents(texts[0]), parse_documents(texts[1]), texts[0], texts[1])


@dataclass
class Result:
    """Everything found about one values file: render error, schema findings, violations."""

    error: str | None = None
    violations: list[Violation] = field(default_factory=list)
    schema_findings: list[str] = field(default_factory=list)
    not_checked: list[str] = field(default_factory=list)
    objects: int = 0

    @property
    def ok(self) -> bool:
        """No problem found. Kinds without a schema are listed in ``not_checked`` (and said), not failed."""
        return self.error is None and not self.violations and not self.schema_findings

    def lines(self) -> list[str]:
        out = [f"render: {line}" for line in self.error.split("\n")] if self.error else []
        out += [str(v) for v in self.violations]
        out += self.schema_findings
        out += [f"not checked: {n}" for n in self.not_checked]
        return out


def conformance(helm: Helm, values: Sequence[Mapping[str, Any]], store: SchemaStore | None, *,
                value_files: Sequence[Path] = (), set_values: Sequence[str] = (), twice: bool = True) -> Result:
    """Render both charts (twice, to prove the render reproducible), validate every object, check invariants."""
    try:
        first = render_pair(helm, values, value_files=value_files, set_values=set_values)
        second = render_pair(helm, values, value_files=value_files, set_values=set_values) if twice else first
    except HelmError as exc:
        return Result(error=exc.message)
    result = Result(violations=check(first), objects=len(first.all))
    if (first.pre_text, first.main_text) != (second.pre_text, second.main_text):
        result.violations.append(Violation("reproducible", "(render)", "two renders of the same values differ"))
    if store is not None:
        report = store.validate_documents(first.all)
        result.schema_findings = [str(f) for f in report.findings]
        result.not_checked = list(report.not_checked)
    return result


# --- every problem of a values file, not just Helm's first --------------------------------------

_SEGMENT = re.compile(r'\.?(?:(?P<name>[^.\[\]"\s:]+)|\[(?P<quoted>"(?:[^"\\]|\\.)*")\]|\[(?P<index>[0-9]+)\])')
_ADDITIONAL = re.compile(r"(?:additional propert(?:y|ies) '?(?P<h4>[^' ]+)'?|Additional property (?P<h3>\S+))")


def parse_value_path(text: str) -> list[str] | None:
    """``enroot.env["A\\nB"]`` -> ``["enroot", "env", "A\nB"]``; list indexes stop the path (the list is the value)."""
    parts: list[str] = []
    pos = 0
    while pos < len(text):
        m = _SEGMENT.match(text, pos)
        if not m or m.end() == pos:
            return None
        if m["index"] is not None:
            break
        if m["quoted"]:
            try:  # Go's %q quoting (\x1f, \a, \u2028 ...) reads like a Python string literal
                key = ast.literal_eval(m["quoted"])
            except (ValueError, SyntaxError):
                return None
            parts.append(str(key))
        else:
            parts.append(m["name"])
        pos = m.end()
    return parts or None


def error_paths(message: str) -> list[list[str]]:
    """The value paths a one-line chart error names (a ``fail`` message or schema findings)."""
    if message.startswith("values.schema.json: "):
        out = []
        for finding in message.removeprefix("values.schema.json: ").split("; "):
            where, _, what = finding.partition(": ")
            path: list[str] = [] if where == "(root)" else parse_value_path(where) or []
            extra = _ADDITIONAL.search(what)
            if extra:
                path = [*path, extra["h4"] or extra["h3"]]
            if path:
                out.append(path)
        return out
    head, sep, _ = message.partition(": ")
    named = parse_value_path(head) if sep else None
    return [named] if named else []


def _without(values: Mapping[str, Any], path: Sequence[str]) -> dict[str, Any]:
    """A copy of the values with the path removed, so the chart default applies there again."""
    out = dict(values)
    if len(path) == 1:
        out.pop(path[0], None)
    elif isinstance(out.get(path[0]), Mapping):
        out[path[0]] = _without(out[path[0]], path[1:])
    return out


def all_problems(helm: Helm, values: Sequence[Mapping[str, Any]], store: SchemaStore | None, *,
                 value_files: Sequence[Path] = (), set_values: Sequence[str] = (), limit: int = 50) -> Result:
    """Every problem of a values file: Helm stops at the first, so each value it names is removed from the
    values as Helm read them (the chart default applies again) and the render retried, until it renders
    (then invariants and schemas run) or stops naming new values. A value whose default fails as well
    has its enclosing block reset."""
    errors: list[str] = []
    resets: list[list[str]] = []
    current = helm.read_values(values, value_files=value_files, set_values=set_values)
    while len(errors) < limit:
        result = conformance(helm, [current], store)
        if result.error is None:
            break
        if result.error not in errors:
            errors.append(result.error)
        new = []
        for path in error_paths(result.error):
            # a value whose default fails too (e.g. an empty class while storage is on): reset its block
            while path in resets and len(path) > 1:
                path = path[:-1]
            if path not in resets:
                new.append(path)
        if not new:
            errors.append("(checking stopped here: fix the error above and run again to see the rest)")
            break
        resets += new
        for path in new:
            current = _without(current, path)
    else:
        errors.append(f"(stopped after {limit} errors)")
    if not errors:
        return result
    if result.error is not None:
        return Result(error="\n".join(errors))
    return Result(error="\n".join(errors), violations=result.violations, schema_findings=result.schema_findings,
                  not_checked=result.not_checked, objects=result.objects)
