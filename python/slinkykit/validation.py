"""Offline validation of every Kubernetes object slinkykit renders or emits.

* Core kinds (``v1``, ``apps/v1``, ...) are checked in strict mode (no unknown fields) against the
  schemas bundled with ``kubernetes-validate`` for :data:`K8S_VERSION`.
* Custom resources are checked against their CRDs (a schema folder, or CRDs pulled from a cluster),
  converted from the OpenAPI v3.0 dialect to JSON Schema 2020-12 by :func:`crd_to_jsonschema`.
* The parts the Slinky CRDs leave open (containers, pod template spec, ...) are checked against the
  bundled core definitions; the mapping is the one table :data:`CORE_SPOTS`.
* ``x-kubernetes-validations`` (CEL) rules cannot be evaluated offline: they are reported as skipped.
* A kind with no schema is never passed silently: it is a "not checked" line of the :class:`Report`.

No network access: every ``$ref`` resolves from local files or fails.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import jsonschema
import kubernetes_validate
from jsonschema.protocols import Validator
from kubernetes_validate.utils import all_versions, major_minor
from referencing import Registry, Resource
from referencing.exceptions import Unresolvable

from . import yamlio

__all__ = [
    "CORE_SPOTS",
    "K8S_VERSION",
    "SCHEMAS_ENV",
    "CoreSpot",
    "Finding",
    "NoSchemaError",
    "Report",
    "SchemaStore",
    "add_cluster_crds",
    "crd_name",
    "crd_to_jsonschema",
    "default_store",
    "find_kubectl",
    "load_cluster_crds",
    "object_id",
    "open_spots",
    "open_store",
    "resolve_schema_dir",
    "validate_documents",
    "validate_helmfile",
    "validate_object",
]

#: Kubernetes version the core kinds are checked against (bundled by kubernetes-validate 1.37.0).
K8S_VERSION = "1.33.0"
#: Environment variable naming the schema folder (slinky/, flux/, argocd/, helmfile/).
SCHEMAS_ENV = "SLINKYKIT_SCHEMAS"
#: JSON Schema dialect of converted CRD schemas.
DIALECT = "https://json-schema.org/draft/2020-12/schema"
#: ``$id`` of kubernetes-validate's bundled ``_definitions.json``.
K8S_DEFS_URI = "https://kubernetes.io/api/_definitions.json"

_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
_CONTAINER = "io.k8s.api.core.v1.Container"
_PODSPEC = "io.k8s.api.core.v1.PodSpec"
_SERVICESPEC = "io.k8s.api.core.v1.ServiceSpec"
_PVC = "io.k8s.api.core.v1.PersistentVolumeClaim"
_SLINKY = "slinky.slurm.net"

# kubernetes_validate.validate() re-reads its bundled schema files (the 1.4 MB _definitions.json among
# them) on every call; they are read-only package data, so remembering each file's parse is safe and
# makes validating a bundle about 2.5 times faster. The validation itself is still kubernetes-validate's.
if not hasattr(kubernetes_validate.utils.schema_contents, "cache_info"):
    kubernetes_validate.utils.schema_contents = functools.lru_cache(maxsize=256)(
        kubernetes_validate.utils.schema_contents)


class CoreSpot(NamedTuple):
    """A CRD path validated against a core definition.

    ``kind`` is ``group/Kind`` (``group/*`` or ``*`` for all); ``path`` is dotted, ``[]`` suffix = each
    list item; ``operator_fills`` drops the definition's top-level ``required`` (the operator sets it).
    """

    kind: str
    path: str
    definition: str
    operator_fills: bool = False


#: Where CRDs leave a core type open, and the core definition that closes it (strict, no unknown fields).
CORE_SPOTS: tuple[CoreSpot, ...] = (
    CoreSpot("*", "metadata", _META),
    CoreSpot(f"{_SLINKY}/*", "spec.template.spec", _PODSPEC, operator_fills=True),
    CoreSpot(f"{_SLINKY}/*", "spec.service.spec", _SERVICESPEC),
    CoreSpot(f"{_SLINKY}/NodeSet", "spec.slurmd", _CONTAINER, operator_fills=True),
    CoreSpot(f"{_SLINKY}/NodeSet", "spec.logfile", _CONTAINER, operator_fills=True),
    CoreSpot(f"{_SLINKY}/NodeSet", "spec.volumeClaimTemplates[]", _PVC),
    CoreSpot(f"{_SLINKY}/LoginSet", "spec.login", _CONTAINER, operator_fills=True),
    CoreSpot(f"{_SLINKY}/LoginSet", "spec.initconf", _CONTAINER, operator_fills=True),
    CoreSpot(f"{_SLINKY}/Controller", "spec.slurmctld", _CONTAINER, operator_fills=True),
    CoreSpot(f"{_SLINKY}/Controller", "spec.reconfigure", _CONTAINER, operator_fills=True),
    CoreSpot(f"{_SLINKY}/Controller", "spec.logfile", _CONTAINER, operator_fills=True),
    CoreSpot(f"{_SLINKY}/RestApi", "spec.slurmrestd", _CONTAINER, operator_fills=True),
    CoreSpot(f"{_SLINKY}/Accounting", "spec.slurmdbd", _CONTAINER, operator_fills=True),
)


@dataclass(frozen=True, order=True)
class Finding:
    """One problem: object id (``Kind/ns/name``), json path (``a.b[0].c``) and message."""

    obj: str
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.obj}: {self.path or '<root>'}: {self.message}"


@dataclass(frozen=True)
class Report:
    """Result of :func:`validate_documents`; ``ok`` needs no findings and nothing left unchecked."""

    findings: tuple[Finding, ...] = ()
    not_checked: tuple[str, ...] = ()
    skipped_rules: tuple[str, ...] = ()
    checked: int = 0
    #: ``"apiVersion kind"`` of each object in ``not_checked``, in the same order.
    unchecked_kinds: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.findings and not self.not_checked

    def lines(self) -> list[str]:
        """Human-readable lines: findings, then not-checked kinds, then skipped CEL rules."""
        out = [str(f) for f in self.findings]
        out += [f"NOT CHECKED {line}" for line in self.not_checked]
        out += [f"SKIPPED {line}" for line in self.skipped_rules]
        return out


class NoSchemaError(LookupError):
    """No schema (core or CRD) is known for an object's apiVersion/kind."""

    def __init__(self, obj_id: str, api_version: str, kind: str, hint: str = "") -> None:
        self.obj_id = obj_id
        self.api_version = api_version
        self.kind = kind
        super().__init__(f"{obj_id}: no schema for {api_version} {kind}; not checked{hint}")


# --------------------------------------------------------------------------- CRD -> JSON Schema

_INT_OR_STRING_ANYOF = [{"type": "integer"}, {"type": "string"}]
_COMBINATORS = ("allOf", "anyOf", "oneOf", "not")
_SUB_PATH: dict[str, Callable[[str], str]] = {
    "items": lambda p: p + "[]",
    "additionalProperties": lambda p: _join(p, "*"),
    "not": lambda p: p,
}


def crd_to_jsonschema(openapi: Mapping[str, Any], skipped: list[str] | None = None) -> dict[str, Any]:
    """Convert a CRD ``openAPIV3Schema`` to JSON Schema 2020-12; CEL rules are appended to ``skipped``."""
    out = _convert(openapi, "", skipped if skipped is not None else [], closed=True)
    out["$schema"] = DIALECT
    return out


def _convert(node: Mapping[str, Any], path: str, skipped: list[str], *, closed: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties":
            out[key] = {
                # Top-level metadata: the API server allows all ObjectMeta fields whatever the CRD says.
                name: _convert(sub, _join(path, name), skipped, closed=bool(path or name != "metadata"))
                for name, sub in value.items()
            }
        elif key in _SUB_PATH and isinstance(value, Mapping):
            out[key] = _convert(value, _SUB_PATH[key](path), skipped, closed=True)
        elif key in ("allOf", "anyOf", "oneOf"):
            out[key] = [_convert(v, path, skipped, closed=True) for v in value]
        elif key == "x-kubernetes-validations":
            for rule in value:
                what = rule.get("message") or rule.get("messageExpression") or rule.get("rule")
                skipped.append(f"{path or '<root>'}: CEL rule not evaluated offline ({what})")
        elif key.startswith("x-kubernetes-") or key == "nullable":
            continue  # handled below, or not checkable offline (list-type, map-type, ...)
        elif key in ("exclusiveMinimum", "exclusiveMaximum") and isinstance(value, bool):
            bound = "minimum" if key == "exclusiveMinimum" else "maximum"
            if value and bound in node:
                out[key] = node[bound]
        else:
            out[key] = copy.deepcopy(value)
    for key in ("exclusiveMinimum", "exclusiveMaximum"):
        if isinstance(node.get(key), bool) and node[key]:
            out.pop("minimum" if key == "exclusiveMinimum" else "maximum", None)

    if node.get("x-kubernetes-int-or-string") is True:
        out["type"] = ["integer", "string"]
        if out.get("anyOf") == _INT_OR_STRING_ANYOF:
            del out["anyOf"]
    preserve = node.get("x-kubernetes-preserve-unknown-fields") is True
    if node.get("x-kubernetes-embedded-resource") is True and not preserve:
        props = out.setdefault("properties", {})
        props.setdefault("apiVersion", {"type": "string"})
        props.setdefault("kind", {"type": "string"})
        props.setdefault("metadata", {"type": "object"})
    if closed and "properties" in out and "additionalProperties" not in out and not preserve:
        out["additionalProperties"] = False
    if node.get("nullable") is True:
        out = _allow_null(out)
    return out


def _allow_null(schema: dict[str, Any]) -> dict[str, Any]:
    if any(k in schema for k in (*_COMBINATORS, "const")):
        return {"anyOf": [{"type": "null"}, schema]}
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        schema["type"] = [*types, "null"] if "null" not in types else types
    if "enum" in schema and None not in schema["enum"]:
        schema["enum"] = [*schema["enum"], None]
    return schema


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def open_spots(openapi: Mapping[str, Any]) -> list[str]:
    """Paths (``[]`` = list items) where a CRD accepts anything: preserve-unknown-fields or bare object."""
    found: list[str] = []

    def walk(node: Mapping[str, Any], path: str) -> None:
        bare_object = node.get("type") == "object" and "properties" not in node
        if node.get("x-kubernetes-preserve-unknown-fields") is True or (
            bare_object and "additionalProperties" not in node
        ):
            found.append(path)
        for name, sub in (node.get("properties") or {}).items():
            walk(sub, _join(path, name))
        if isinstance(node.get("items"), Mapping):
            walk(node["items"], path + "[]")
        if isinstance(node.get("additionalProperties"), Mapping):
            walk(node["additionalProperties"], _join(path, "*"))

    walk(openapi, "")
    return found


# --------------------------------------------------------------------------- core definitions


def _bundled_version(k8s_version: str) -> str:
    """The newest kubernetes-validate schema version not newer than ``k8s_version`` (its own rule)."""
    wanted = tuple(int(p) for p in major_minor(k8s_version.lstrip("v")).split("."))
    fitting = [v for v in all_versions() if tuple(int(p) for p in major_minor(v).split(".")) <= wanted]
    if not fitting:
        raise kubernetes_validate.utils.VersionNotSupportedError(version=k8s_version)
    return str(fitting[-1])


def _bundled_dir(k8s_version: str) -> Path:
    root = Path(kubernetes_validate.__file__).resolve().parent / "kubernetes-json-schema"
    return root / f"v{_bundled_version(k8s_version)}-local-strict"


@functools.lru_cache(maxsize=4)
def _core_definitions(k8s_version: str) -> dict[str, Any]:
    """The strict ``_definitions.json`` bundled for ``k8s_version``."""
    defs: dict[str, Any] = json.loads((_bundled_dir(k8s_version) / "_definitions.json").read_text())
    return defs


def _absolute_refs(node: Any) -> Any:
    """Copy of ``node`` with ``#/$defs/...`` refs pointing at the bundled definitions file."""
    if isinstance(node, Mapping):
        return {
            k: K8S_DEFS_URI + v if k == "$ref" and str(v).startswith("#") else _absolute_refs(v)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_absolute_refs(v) for v in node]
    return node


def _api_group(api_version: str) -> str:
    return api_version.rpartition("/")[0]


def _is_core_group(group: str) -> bool:
    return "." not in group or group.endswith(".k8s.io")


# --------------------------------------------------------------------------- schema store


@dataclass
class _Crd:
    openapi: dict[str, Any]
    source: str
    validator: Validator | None = None
    skipped: list[str] = field(default_factory=list)
    spots: list[CoreSpot] = field(default_factory=list)


class SchemaStore:
    """Schemas by (apiVersion, kind): CRDs (converted lazily, cached) and bundled core kinds."""

    def __init__(self, schema_dir: Path | None = None, *, k8s_version: str = K8S_VERSION) -> None:
        self.schema_dir = schema_dir
        self.k8s_version = k8s_version
        self._crds: dict[tuple[str, str, str], _Crd] = {}
        self._core: dict[tuple[str, str], Validator | None] = {}
        self._helmfile: Validator | None = None
        defs = _core_definitions(k8s_version)
        # Registry()'s default retrieve raises NoSuchResource: no $ref ever goes to the network.
        self.registry: Registry[Any] = Registry().with_resource(K8S_DEFS_URI, Resource.from_contents(defs))
        missing = {s.definition for s in CORE_SPOTS} - set(defs["$defs"])
        if missing:
            raise KeyError(f"core definitions missing for Kubernetes {k8s_version}: {sorted(missing)}")

    @classmethod
    def from_dir(cls, schema_dir: Path | str | None = None, *, k8s_version: str = K8S_VERSION) -> SchemaStore:
        """Load every CRD YAML under the folder (argument, else ``$SLINKYKIT_SCHEMAS``), recursively."""
        folder = resolve_schema_dir(schema_dir)
        store = cls(folder, k8s_version=k8s_version)
        for path in sorted([*folder.rglob("*.yaml"), *folder.rglob("*.yml")]):
            for doc in yamlio.load_all(path.read_text()):
                if isinstance(doc, Mapping) and doc.get("kind") == "CustomResourceDefinition":
                    store.add_crd(doc, source=str(path))
        return store

    def add_crd(self, crd: Mapping[str, Any], source: str = "<memory>") -> None:
        """Index a CustomResourceDefinition's served versions (a later CRD replaces an earlier one)."""
        spec = crd["spec"]
        for version in spec["versions"]:
            if not version.get("served", True):
                continue
            openapi = (version.get("schema") or {}).get("openAPIV3Schema")
            if openapi is None:
                continue
            key = (spec["group"], version["name"], spec["names"]["kind"])
            self._crds[key] = _Crd(openapi=openapi, source=source)

    def crd_kinds(self) -> list[tuple[str, str]]:
        """Known custom kinds as (apiVersion, kind)."""
        return sorted((f"{g}/{v}", k) for g, v, k in self._crds)

    def crd_openapi(self, api_version: str, kind: str) -> dict[str, Any] | None:
        """The CRD's raw ``openAPIV3Schema`` for a served version, or None."""
        crd = self._crds.get(_gvk(api_version, kind))
        return crd.openapi if crd else None

    def crd_schema(self, api_version: str, kind: str) -> dict[str, Any] | None:
        """Converted JSON Schema with :data:`CORE_SPOTS` applied, or None when the kind is unknown."""
        validator = self._crd_validator(api_version, kind)
        return copy.deepcopy(dict(validator.schema)) if validator is not None else None

    def applied_spots(self, api_version: str, kind: str) -> list[CoreSpot]:
        """The :data:`CORE_SPOTS` rows that matched a field of that CRD."""
        self._crd_validator(api_version, kind)
        crd = self._crds.get(_gvk(api_version, kind))
        return list(crd.spots) if crd else []

    def skipped_rules(self, api_version: str, kind: str) -> list[str]:
        """CEL rules of that CRD that offline validation does not evaluate."""
        self._crd_validator(api_version, kind)
        crd = self._crds.get(_gvk(api_version, kind))
        return list(crd.skipped) if crd else []

    def _crd_validator(self, api_version: str, kind: str) -> Validator | None:
        gvk = _gvk(api_version, kind)
        crd = self._crds.get(gvk)
        if crd is None:
            return None
        if crd.validator is None:
            crd.skipped = []
            schema = crd_to_jsonschema(crd.openapi, crd.skipped)
            crd.spots = self._apply_core_spots(schema, f"{gvk[0]}/{kind}")
            crd.validator = jsonschema.Draft202012Validator(schema, registry=self.registry)
        return crd.validator

    def _apply_core_spots(self, schema: dict[str, Any], group_kind: str) -> list[CoreSpot]:
        group = group_kind.split("/")[0]
        defs = _core_definitions(self.k8s_version)["$defs"]
        applied: list[CoreSpot] = []
        for spot in CORE_SPOTS:
            if spot.kind not in ("*", f"{group}/*", group_kind):
                continue
            *parents, last = spot.path.removesuffix("[]").split(".")
            node = schema
            for name in parents:
                node = node.get("properties", {}).get(name, {})
            props = node.get("properties", {})
            if last not in props:
                continue  # this CRD (version) has no such field
            core: dict[str, Any] = {"$ref": f"{K8S_DEFS_URI}#/$defs/{spot.definition}"}
            if spot.operator_fills:
                core = _absolute_refs({k: v for k, v in defs[spot.definition].items() if k != "required"})
            if spot.path.endswith("[]"):
                nullable = "null" in _types(props[last]) or "type" not in props[last]
                core = {"type": ["array", "null"] if nullable else "array", "items": core}
            if "properties" in props[last]:
                core = {"allOf": [props[last], core]}  # keep what the CRD itself says
            if "description" in props[last]:
                core["description"] = props[last]["description"]
            props[last] = core
            applied.append(spot)
        return applied

    def core_validator(self, api_version: str, kind: str) -> Validator | None:
        """Strict validator for a core kind bundled with kubernetes-validate, or None."""
        key = (api_version, kind)
        if key not in self._core:
            self._core[key] = self._load_core(api_version, kind)
        return self._core[key]

    def _load_core(self, api_version: str, kind: str) -> Validator | None:
        group = _api_group(api_version)
        if not _is_core_group(group):
            return None
        # kubernetes-validate's file naming: rbac.authorization.k8s.io/v1 -> rbac-v1
        mangled = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
        path = _bundled_dir(self.k8s_version) / f"{kind.lower()}-{mangled}.json"
        if not path.is_file():
            return None
        schema = json.loads(path.read_text())
        gvks = schema.get("x-kubernetes-group-version-kind") or []
        if not any(g.get("group") == group and g.get("kind") == kind for g in gvks):
            return None  # file name collision with another group
        return jsonschema.Draft202012Validator(schema, registry=self.registry)

    def helmfile_validator(self) -> Validator:
        """Validator for ``helmfile/helmfile.json`` in the schema folder."""
        if self._helmfile is None:
            if self.schema_dir is None:
                raise FileNotFoundError("no schema folder: cannot validate helmfile")
            schema = json.loads((self.schema_dir / "helmfile" / "helmfile.json").read_text())
            cls = jsonschema.validators.validator_for(schema)
            cls.check_schema(schema)
            self._helmfile = cls(schema, registry=Registry())
        return self._helmfile

    # ----------------------------------------------------------------------- validation

    def validate_object(self, obj: Mapping[str, Any]) -> list[Finding]:
        """Findings for one object; raises :class:`NoSchemaError` when no schema is known."""
        oid = object_id(obj)
        api_version, kind = obj.get("apiVersion"), obj.get("kind")
        if not isinstance(api_version, str) or not isinstance(kind, str) or not api_version or not kind:
            return [Finding(oid, "", "apiVersion and kind must be non-empty strings")]
        validator = self._crd_validator(api_version, kind)
        if validator is not None:
            return _findings(oid, validator, obj)
        validator = self.core_validator(api_version, kind)
        if validator is None:
            group = _api_group(api_version)
            served = sorted(v for g, v, k in self._crds if (g, k) == (group, kind))
            hint = f" (CRD serves {', '.join(f'{group}/{v}' for v in served)})" if served else ""
            raise NoSchemaError(oid, api_version, kind, hint)
        try:  # kubernetes-validate is the authority; our validator lists every error, not just the first
            kubernetes_validate.validate(dict(obj), self.k8s_version, strict=True)
        except kubernetes_validate.SchemaNotFoundError as exc:
            raise NoSchemaError(oid, api_version, kind) from exc
        except kubernetes_validate.ValidationError as exc:
            found = _findings(oid, validator, obj)
            return found or [Finding(oid, _json_path(exc.absolute_path), exc.message)]
        return []

    def validate_documents(self, objs: Iterable[Any]) -> Report:
        """Validate many objects (``None`` documents skipped, ``kind: List`` expanded)."""
        findings: list[Finding] = []
        not_checked: list[str] = []
        unchecked_kinds: list[str] = []
        skipped: dict[str, None] = {}
        checked = 0
        for index, obj in enumerate(_expand(objs)):
            if not isinstance(obj, Mapping):
                findings.append(Finding(f"document[{index}]", "", f"not a mapping: {type(obj).__name__}"))
                continue
            try:
                findings += self.validate_object(obj)
            except NoSchemaError as exc:
                not_checked.append(str(exc))
                unchecked_kinds.append(f"{exc.api_version} {exc.kind}")
                continue
            checked += 1
            api_version, kind = str(obj.get("apiVersion")), str(obj.get("kind"))
            for rule in self.skipped_rules(api_version, kind):
                skipped[f"{kind} ({api_version}) {rule}"] = None
        return Report(tuple(findings), tuple(not_checked), tuple(skipped), checked, tuple(unchecked_kinds))

    def validate_helmfile(self, doc: Any) -> list[Finding]:
        """Findings for a helmfile.yaml document (already parsed) against helmfile.json."""
        return _findings("helmfile", self.helmfile_validator(), doc)


def _gvk(api_version: str, kind: str) -> tuple[str, str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version, kind


def _types(schema: Mapping[str, Any]) -> list[str]:
    t = schema.get("type")
    return list(t) if isinstance(t, list) else [t] if isinstance(t, str) else []


def _expand(objs: Iterable[Any]) -> Iterator[Any]:
    for obj in objs:
        if obj is None:
            continue
        if isinstance(obj, Mapping) and obj.get("kind") == "List" and isinstance(obj.get("items"), list):
            yield from _expand(obj["items"])
        else:
            yield obj


def object_id(obj: Mapping[str, Any]) -> str:
    """``Kind/namespace/name`` (``Kind/name`` without namespace)."""
    meta = obj.get("metadata")
    if not isinstance(meta, Mapping):
        meta = {}
    parts = [str(obj.get("kind") or "?"), str(meta.get("namespace") or ""), str(meta.get("name") or "?")]
    return "/".join(p for p in parts if p)


_PLAIN_KEY = re.compile(r"^[A-Za-z0-9_$-]+$")


def _json_path(parts: Iterable[str | int]) -> str:
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _PLAIN_KEY.match(part):
            out += f".{part}" if out else part
        else:
            out += f"[{json.dumps(part)}]"
    return out


def _findings(oid: str, validator: Validator, instance: Any) -> list[Finding]:
    found: list[Finding] = []
    try:
        errors = list(validator.iter_errors(instance))
    except Unresolvable as exc:  # a $ref outside the local files: a bug in the schemas, not in the object
        return [Finding(oid, "", f"schema error: unresolvable reference {exc}")]
    for err in errors:
        path = list(err.absolute_path)
        if err.validator == "additionalProperties" and err.validator_value is False:
            extras = _unexpected(err.instance, err.schema)
            found += [Finding(oid, _json_path([*path, key]), f"unknown field {key!r}") for key in extras]
            if extras:
                continue
        message = err.message if len(err.message) <= 300 else err.message[:297] + "..."
        found.append(Finding(oid, _json_path(path), message))
    return sorted(set(found))


def _unexpected(instance: Any, schema: Any) -> list[str]:
    if not isinstance(instance, Mapping) or not isinstance(schema, Mapping):
        return []
    props = schema.get("properties") or {}
    patterns = list((schema.get("patternProperties") or {}).keys())
    return [k for k in instance if k not in props and not any(re.search(p, k) for p in patterns)]


# --------------------------------------------------------------------------- module-level API


def resolve_schema_dir(schema_dir: Path | str | None = None) -> Path:
    """The schema folder: the argument, else ``$SLINKYKIT_SCHEMAS``."""
    chosen = schema_dir if schema_dir is not None else os.environ.get(SCHEMAS_ENV)
    if not chosen:
        raise FileNotFoundError(f"no schema folder: pass one or set ${SCHEMAS_ENV}")
    folder = Path(chosen).expanduser().resolve()
    if not folder.is_dir():
        raise FileNotFoundError(f"schema folder not found: {folder}")
    return folder


@functools.lru_cache(maxsize=8)
def _store_for(folder: Path, k8s_version: str) -> SchemaStore:
    return SchemaStore.from_dir(folder, k8s_version=k8s_version)


def default_store(schema_dir: Path | str | None = None, *, k8s_version: str = K8S_VERSION) -> SchemaStore:
    """A cached :class:`SchemaStore` for the folder (argument, else ``$SLINKYKIT_SCHEMAS``)."""
    return _store_for(resolve_schema_dir(schema_dir), k8s_version)


def validate_object(obj: Mapping[str, Any], store: SchemaStore | None = None) -> list[Finding]:
    """Findings for one object; raises :class:`NoSchemaError` when no schema is known."""
    return (store or default_store()).validate_object(obj)


def validate_documents(objs: Iterable[Any], store: SchemaStore | None = None) -> Report:
    """Validate many objects; kinds without a schema become "not checked" lines."""
    return (store or default_store()).validate_documents(objs)


def validate_helmfile(doc: Any, store: SchemaStore | None = None) -> list[Finding]:
    """Findings for a parsed helmfile.yaml against ``helmfile/helmfile.json``."""
    return (store or default_store()).validate_helmfile(doc)


def load_cluster_crds(
    kubectl: Path | str, names: Sequence[str], *, timeout: float = 60.0
) -> list[dict[str, Any]]:
    """CRDs read from the current cluster with ``kubectl get crd NAME... -o yaml`` (for :meth:`add_crd`)."""
    if not names:
        return []
    proc = subprocess.run(
        [str(kubectl), "get", "crd", *names, "-o", "yaml"],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=True,
    )
    doc = yamlio.load(proc.stdout)
    if not isinstance(doc, dict):
        return []
    items = doc.get("items", []) if doc.get("kind") == "List" else [doc]
    return [item for item in items if item.get("kind") == "CustomResourceDefinition"]


def find_kubectl() -> str:
    """kubectl for CRDs from the cluster: $KUBECTL, else the one on PATH, else the project's tools folder."""
    from .helm import find_helm

    env = os.environ.get("KUBECTL")
    if env:
        return env
    found = shutil.which("kubectl")
    if found:
        return found
    try:
        return str(find_helm().parent / "kubectl")
    except FileNotFoundError:
        return "kubectl"


def crd_name(api_version: str, kind: str) -> str:
    """The conventional CRD name of a kind (``nodesets.slinky.slurm.net``)."""
    group = api_version.rpartition("/")[0]
    plural = kind.lower()[:-1] + "ies" if kind.lower().endswith("y") else kind.lower() + "s"
    return f"{plural}.{group}"


def open_store(folder: Path | None, *, from_cluster: bool) -> tuple[SchemaStore, str]:
    """A store for the folder (else ``$SLINKYKIT_SCHEMAS``) and a phrase saying where CRD schemas come from.

    With ``from_cluster`` the store is a fresh one (cluster CRDs must not leak into the cached one); add
    them with :func:`add_cluster_crds`. Raises NotADirectoryError for a folder that is not there.
    """
    if folder is None and os.environ.get(SCHEMAS_ENV):
        folder = Path(os.environ[SCHEMAS_ENV])
    if folder is not None and not folder.is_dir():
        raise NotADirectoryError(f"--schemas {folder}: not a folder; pass the folder holding slinky/, flux/, "
                                 f"argocd/, helmfile/ (or set {SCHEMAS_ENV})")
    if from_cluster:
        store = SchemaStore.from_dir(folder) if folder is not None else SchemaStore(None)
        return store, "CRDs from the cluster" + (" and the schema folder" if folder is not None else "")
    if folder is None:
        return SchemaStore(None), "no CRD schemas (pass --schemas DIR or --schemas-from-cluster)"
    return default_store(folder), "CRDs from the schema folder"


def add_cluster_crds(store: SchemaStore, objects: Iterable[Mapping[str, Any]], asked: set[str], *,
                     progress: Callable[[str], None] = lambda _: None) -> None:
    """Read from the cluster the CRDs of the objects' custom kinds not asked for yet (``asked`` grows)."""
    wanted = sorted({crd_name(str(o.get("apiVersion")), str(o.get("kind"))) for o in objects
                     if "." in str(o.get("apiVersion", "")).rpartition("/")[0]} - asked)
    if not wanted:
        return
    kubectl = find_kubectl()
    progress(f"reading {len(wanted)} CRDs from the cluster with {kubectl}")
    for name in wanted:
        asked.add(name)
        try:
            for crd in load_cluster_crds(kubectl, [name]):
                store.add_crd(crd, source=f"cluster:{name}")
        except (OSError, subprocess.SubprocessError) as exc:
            detail = " ".join(str(getattr(exc, "stderr", "") or exc).split())
            progress(f"CRD {name} not read from the cluster: {detail[:200]}")
