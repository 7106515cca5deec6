"""Offline validation: CRD conversion, Slinky open spots, core kinds, Flux/Argo CD, helmfile."""

from __future__ import annotations

import copy
import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from slinkykit import validation as v

SCHEMAS = Path(
    os.environ.get(v.SCHEMAS_ENV) or Path(__file__).resolve().parents[2] / "shared" / "schemas"
).resolve()
CRD_FILES = sorted(p for sub in ("slinky", "flux", "argocd") for p in (SCHEMAS / sub).glob("*.yaml"))
SLINKY = "slinky.slurm.net/v1beta1"


@pytest.fixture(scope="module", autouse=True)
def no_network() -> Iterator[None]:
    """Any socket connection during these tests is a bug."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"network access attempted: {args!r}")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(socket.socket, "connect", refuse)
        mp.setattr(socket, "create_connection", refuse)
        yield


@pytest.fixture(scope="module")
def store() -> v.SchemaStore:
    return v.SchemaStore.from_dir(SCHEMAS)


def paths(findings: list[v.Finding]) -> list[str]:
    return [f.path for f in findings]


def check(schema: dict[str, Any], instance: Any) -> list[str]:
    """Validate ``instance`` against a converted schema; dotted error paths ('' = root)."""
    validator = jsonschema.Draft202012Validator(schema)
    return sorted(".".join(map(str, e.absolute_path)) for e in validator.iter_errors(instance))


def obj_schema(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props}


# --------------------------------------------------------------------------- conversion units


def test_schema_folder_present() -> None:
    assert (SCHEMAS / "helmfile" / "helmfile.json").is_file(), f"schemas missing at {SCHEMAS}"
    assert len(CRD_FILES) == 12, [p.name for p in CRD_FILES]


def test_nullable_allows_null_only_when_set() -> None:
    schema = v.crd_to_jsonschema(
        obj_schema(
            a={"type": "string", "nullable": True},
            b={"type": "string"},
            c={"type": "string", "enum": ["x"], "nullable": True},
        )
    )
    assert check(schema, {"a": None, "b": "s", "c": None}) == []
    assert check(schema, {"a": 1}) == ["a"]
    assert check(schema, {"b": None}) == ["b"]
    assert check(schema, {"c": "y"}) == ["c"]


def test_int_or_string() -> None:
    openapi = obj_schema(
        m={"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": True},
        q={"x-kubernetes-int-or-string": True, "pattern": "^[0-9]+Gi$"},
    )
    schema = v.crd_to_jsonschema(openapi)
    assert check(schema, {"m": 1, "q": 5}) == []
    assert check(schema, {"m": "25%", "q": "10Gi"}) == []
    assert check(schema, {"m": 1.5}) == ["m"]
    assert check(schema, {"m": True}) == ["m"]
    assert check(schema, {"q": "10G"}) == ["q"]
    assert check(schema, {"q": None}) == ["q"]


def test_preserve_unknown_fields_only_where_declared() -> None:
    openapi = obj_schema(
        open=obj_schema(a={"type": "string"}) | {"x-kubernetes-preserve-unknown-fields": True},
        closed=obj_schema(a={"type": "string"}),
        free={"x-kubernetes-preserve-unknown-fields": True},
    )
    schema = v.crd_to_jsonschema(openapi)
    assert check(schema, {"open": {"a": "x", "extra": 1}, "free": [1, {"b": 2}]}) == []
    assert check(schema, {"open": {"a": 1}}) == ["open.a"]  # known fields still typed
    assert check(schema, {"closed": {"a": "x", "extra": 1}}) == ["closed"]
    assert check(schema, {"unknown": 1}) == [""]


def test_unknown_field_rejected_but_maps_stay_open() -> None:
    openapi = obj_schema(
        labels={"type": "object", "additionalProperties": {"type": "string"}},
        spec=obj_schema(replicas={"type": "integer"}),
    )
    schema = v.crd_to_jsonschema(openapi)
    assert check(schema, {"labels": {"any": "x"}, "spec": {"replicas": 1}}) == []
    assert check(schema, {"labels": {"any": 1}}) == ["labels.any"]
    assert check(schema, {"spec": {"replica": 1}}) == ["spec"]


def test_top_level_metadata_is_never_closed() -> None:
    openapi = obj_schema(metadata=obj_schema(name={"type": "string", "maxLength": 5}), spec=obj_schema())
    schema = v.crd_to_jsonschema(openapi)
    assert check(schema, {"metadata": {"name": "a", "labels": {"x": "y"}}}) == []
    assert check(schema, {"metadata": {"name": "toolong"}}) == ["metadata.name"]


def test_embedded_resource_allows_type_and_object_meta() -> None:
    openapi = obj_schema(
        tpl=obj_schema(spec={"type": "object"}) | {"x-kubernetes-embedded-resource": True},
    )
    schema = v.crd_to_jsonschema(openapi)
    assert check(schema, {"tpl": {"apiVersion": "v1", "kind": "Pod", "metadata": {}, "spec": {}}}) == []
    assert check(schema, {"tpl": {"status": {}}}) == ["tpl"]


def test_cel_rules_dropped_and_reported() -> None:
    rule = {"rule": "self.a > 0", "message": "a must be positive"}
    openapi = obj_schema(
        spec=obj_schema(a={"type": "integer"}, l={"type": "array", "items": {"type": "string"}})
        | {"x-kubernetes-validations": [rule]}
    )
    openapi["properties"]["spec"]["properties"]["l"]["x-kubernetes-list-type"] = "set"
    skipped: list[str] = []
    schema = v.crd_to_jsonschema(openapi, skipped)
    assert "x-kubernetes" not in str(schema)
    assert skipped == ["spec: CEL rule not evaluated offline (a must be positive)"]
    assert check(schema, {"spec": {"a": -1}}) == []  # honest: CEL is not evaluated


def test_boolean_exclusive_minimum() -> None:
    schema = v.crd_to_jsonschema(obj_schema(n={"type": "integer", "minimum": 0, "exclusiveMinimum": True}))
    assert check(schema, {"n": 1}) == []
    assert check(schema, {"n": 0}) == ["n"]


# --------------------------------------------------------------------------- every CRD file


@pytest.mark.parametrize("path", CRD_FILES, ids=lambda p: p.name)
def test_crd_converts_to_valid_schema(path: Path, store: v.SchemaStore) -> None:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    docs = [d for d in yaml.load_all(path.read_text(), Loader=loader) if d]
    assert docs and all(d["kind"] == "CustomResourceDefinition" for d in docs)
    for crd in docs:
        for version in crd["spec"]["versions"]:
            skipped: list[str] = []
            schema = v.crd_to_jsonschema(version["schema"]["openAPIV3Schema"], skipped)
            jsonschema.validators.validator_for(schema).check_schema(schema)
            assert "'x-kubernetes-" not in str(schema)
            rules = str(version["schema"]).count("'rule':")
            assert len(skipped) == rules, "every CEL rule must be reported as skipped"
            api_version = f"{crd['spec']['group']}/{version['name']}"
            full = store.crd_schema(api_version, crd["spec"]["names"]["kind"])  # with CORE_SPOTS applied
            assert full is not None and "$ref" in str(full["properties"]["metadata"])
            # Elsewhere only metadata differs, and check_schema takes a second on Argo CD's schema.
            if path.parent.name == "slinky":
                jsonschema.validators.validator_for(full).check_schema(full)


def test_every_open_slinky_spot_is_mapped(store: v.SchemaStore) -> None:
    """A new open spot in a Slinky CRD must get a CORE_SPOTS row (or this fails)."""
    used: set[v.CoreSpot] = set()
    for api_version, kind in store.crd_kinds():
        if not api_version.startswith("slinky.slurm.net/"):
            continue
        openapi = store.crd_openapi(api_version, kind)
        assert openapi is not None
        for spot_path in v.open_spots(openapi):
            if spot_path.startswith("status"):
                continue
            rows = [
                s
                for s in v.CORE_SPOTS
                if s.kind in ("*", "slinky.slurm.net/*", f"slinky.slurm.net/{kind}")
                and s.path.removesuffix("[]") == spot_path
            ]
            assert rows, f"{kind}: open spot {spot_path} has no core definition"
            applied = set(store.applied_spots(api_version, kind))
            assert set(rows) <= applied, f"{kind}: {spot_path} not applied"
            used.update(rows)
    assert {s for s in v.CORE_SPOTS if s.kind != "*"} <= used


# --------------------------------------------------------------------------- Slinky objects

NODESET: dict[str, Any] = {
    "apiVersion": SLINKY,
    "kind": "NodeSet",
    "metadata": {"name": "slurm-worker-cpu", "namespace": "slurm", "labels": {"app": "slurmd"}},
    "spec": {
        "controllerRef": {"name": "slurm"},
        "replicas": 2,
        "slurmd": {
            "image": "ghcr.io/slinkyproject/slurmd:25.05-ubuntu24.04",
            "imagePullPolicy": "IfNotPresent",
            "resources": {"limits": {"cpu": "4", "memory": "8Gi"}},
            "volumeMounts": [{"name": "scratch", "mountPath": "/scratch"}],
        },
        "logfile": {"image": "docker.io/library/alpine:latest"},
        "partition": {"enabled": True, "config": "State=UP MaxTime=UNLIMITED"},
        "template": {
            "metadata": {"labels": {"pool": "cpu"}},
            "spec": {
                "nodeSelector": {"kubernetes.io/os": "linux"},
                "priorityClassName": "",
                "volumes": [{"name": "scratch", "emptyDir": {}}],
                "tolerations": [{"key": "slurm", "operator": "Exists", "effect": "NoSchedule"}],
            },
        },
        "volumeClaimTemplates": [
            {
                "metadata": {"name": "data"},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}}},
            }
        ],
        "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}},
    },
}

LOGINSET: dict[str, Any] = {
    "apiVersion": SLINKY,
    "kind": "LoginSet",
    "metadata": {"name": "slurm-login", "namespace": "slurm"},
    "spec": {
        "controllerRef": {"name": "slurm"},
        "sssdConfRef": {"name": "slurm-sssd-conf", "key": "sssd.conf"},
        "replicas": 1,
        "login": {
            "image": "ghcr.io/slinkyproject/login:25.05-ubuntu24.04",
            "env": [{"name": "A", "value": "1"}],
        },
        "initconf": {"image": "ghcr.io/slinkyproject/sackd:25.05-ubuntu24.04"},
        "service": {"spec": {"type": "LoadBalancer"}, "port": 22},
        "template": {"spec": {"hostname": "login"}},
    },
}


def with_change(obj: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """Deep copy of obj with the dotted path (ints index lists) set to value."""
    out = copy.deepcopy(obj)
    *parents, last = path.split(".")
    node: Any = out
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node.setdefault(part, {})
    node[last] = value
    return out


@pytest.mark.parametrize("obj", [NODESET, LOGINSET], ids=["NodeSet", "LoginSet"])
def test_valid_slinky_objects_pass(obj: dict[str, Any], store: v.SchemaStore) -> None:
    assert store.validate_object(obj) == []


def test_minimal_nodeset_passes(store: v.SchemaStore) -> None:
    minimal = {
        "apiVersion": SLINKY,
        "kind": "NodeSet",
        "metadata": {"name": "n"},
        "spec": {"controllerRef": {}},
    }
    assert store.validate_object(minimal) == []
    assert paths(store.validate_object({**minimal, "spec": {}})) == ["spec"]


@pytest.mark.parametrize(
    ("obj", "container"),
    [(NODESET, "slurmd"), (NODESET, "logfile"), (LOGINSET, "login"), (LOGINSET, "initconf")],
)
def test_container_typo_fails_with_path(obj: dict[str, Any], container: str, store: v.SchemaStore) -> None:
    broken = with_change(obj, f"spec.{container}.volumeMount", [{"name": "x", "mountPath": "/x"}])
    findings = store.validate_object(broken)
    assert paths(findings) == [f"spec.{container}.volumeMount"]
    assert "volumeMount" in findings[0].message
    assert findings[0].obj == f"{obj['kind']}/slurm/{obj['metadata']['name']}"


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [
        ("spec.template.spec.nodeSelector", "gpu", "spec.template.spec.nodeSelector"),
        (
            "spec.template.spec.volumes",
            [{"name": "v", "hostPath": {"path": 1}}],
            "spec.template.spec.volumes[0].hostPath.path",
        ),
        ("spec.template.spec.containers", [{"image": "x"}], "spec.template.spec.containers[0]"),
        ("spec.template.metadata.labels", ["a"], "spec.template.metadata.labels"),
        ("spec.template.metadata.namespace", "x", "spec.template.metadata.namespace"),
        ("spec.slurmd.resources", {"limits": {"cpu": [1]}}, "spec.slurmd.resources.limits.cpu"),
        (
            "spec.volumeClaimTemplates.0.spec.accessMode",
            ["ReadWriteOnce"],
            "spec.volumeClaimTemplates[0].spec.accessMode",
        ),
        ("spec.volumeClaimTemplates", {"name": "x"}, "spec.volumeClaimTemplates"),
        ("metadata.label", {"a": "b"}, "metadata.label"),
        ("metadata.labels", {"a": 1}, "metadata.labels.a"),
        ("spec.replicas", "2", "spec.replicas"),
        ("spec.controllerRef.namespace", "slurm", "spec.controllerRef.namespace"),
    ],
)
def test_nodeset_errors_name_the_path(path: str, value: Any, expected: str, store: v.SchemaStore) -> None:
    assert paths(store.validate_object(with_change(NODESET, path, value))) == [expected]


def test_service_spec_is_checked(store: v.SchemaStore) -> None:
    broken = with_change(LOGINSET, "spec.service.spec.type", 5)
    assert paths(store.validate_object(broken)) == ["spec.service.spec.type"]
    broken = with_change(LOGINSET, "spec.service.spec.externalTrafficPolice", "Local")
    assert paths(store.validate_object(broken)) == ["spec.service.spec.externalTrafficPolice"]


def test_controller_and_restapi_containers(store: v.SchemaStore) -> None:
    controller = {
        "apiVersion": SLINKY,
        "kind": "Controller",
        "metadata": {"name": "slurm", "namespace": "slurm"},
        "spec": {
            "slurmKeyRef": {"name": "slurm-auth-slurm", "key": "slurm.key"},
            "jwtHs256KeyRef": {"name": "slurm-auth-jwths256", "key": "jwt_hs256.key"},
            "slurmctld": {"image": "ghcr.io/slinkyproject/slurmctld:25.05", "args": ["-vvv"]},
            "reconfigure": {"image": "ghcr.io/slinkyproject/slurmctld:25.05"},
            "persistence": {"enabled": True, "resources": {"requests": {"storage": "4Gi"}}},
        },
    }
    assert store.validate_object(controller) == []
    assert paths(store.validate_object(with_change(controller, "spec.slurmctld.arg", []))) == [
        "spec.slurmctld.arg"
    ]
    restapi = {
        "apiVersion": SLINKY,
        "kind": "RestApi",
        "metadata": {"name": "slurm-restapi"},
        "spec": {
            "controllerRef": {"name": "slurm"},
            "slurmrestd": {"image": "x", "ports": [{"containerPort": "http"}]},
        },
    }
    assert paths(store.validate_object(restapi)) == ["spec.slurmrestd.ports[0].containerPort"]
    assert store.skipped_rules(SLINKY, "Controller"), "Controller CEL rules should be reported as skipped"


# --------------------------------------------------------------------------- core kinds

CONFIGMAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "c", "namespace": "slurm"},
    "data": {"k": "v"},
}
PVC = {
    "apiVersion": "v1",
    "kind": "PersistentVolumeClaim",
    "metadata": {"name": "statesave", "namespace": "slurm"},
    "spec": {
        "accessModes": ["ReadWriteMany"],
        "storageClassName": "nfs",
        "resources": {"requests": {"storage": "8Gi"}},
    },
}


def test_k8s_version_is_bundled() -> None:
    from kubernetes_validate.utils import all_versions

    assert v.K8S_VERSION in all_versions()


@pytest.mark.parametrize("obj", [CONFIGMAP, PVC], ids=["ConfigMap", "PVC"])
def test_core_objects_pass_strict(obj: dict[str, Any], store: v.SchemaStore) -> None:
    assert store.validate_object(obj) == []


def test_core_unknown_fields_fail_and_all_are_listed(store: v.SchemaStore) -> None:
    broken = with_change(with_change(PVC, "spec.storageClass", "nfs"), "spec.resources.request", {})
    findings = store.validate_object(broken)
    assert paths(findings) == ["spec.resources.request", "spec.storageClass"]
    assert all(f.obj == "PersistentVolumeClaim/slurm/statesave" for f in findings)
    assert paths(store.validate_object(with_change(CONFIGMAP, "data.k", 1))) == ["data.k"]


def test_core_deployment_nested_container(store: v.SchemaStore) -> None:
    deploy = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d"},
        "spec": {
            "selector": {"matchLabels": {"a": "b"}},
            "template": {
                "metadata": {"labels": {"a": "b"}},
                "spec": {"containers": [{"name": "c", "image": "i"}]},
            },
        },
    }
    assert store.validate_object(deploy) == []
    typo = [{"name": "c", "imagePullPolice": "Always"}]
    broken = with_change(deploy, "spec.template.spec.containers", typo)
    assert paths(store.validate_object(broken)) == ["spec.template.spec.containers[0].imagePullPolice"]


def test_unknown_kind_is_not_checked(store: v.SchemaStore) -> None:
    foo = {"apiVersion": "example.com/v1", "kind": "Foo", "metadata": {"name": "bar"}}
    with pytest.raises(v.NoSchemaError):
        store.validate_object(foo)
    report = store.validate_documents([CONFIGMAP, foo])
    assert report.not_checked == ("Foo/bar: no schema for example.com/v1 Foo; not checked",)
    assert report.findings == ()
    assert report.checked == 1
    assert not report.ok


def test_custom_group_never_uses_core_schema(store: v.SchemaStore) -> None:
    """kubernetes-validate maps apps.example.com/v1 to the apps-v1 files; we must not."""
    fake = {"apiVersion": "apps.example.com/v1", "kind": "Deployment", "metadata": {"name": "x"}, "spec": 1}
    report = store.validate_documents([fake])
    assert len(report.not_checked) == 1 and report.findings == ()


def test_unserved_version_hint(store: v.SchemaStore) -> None:
    old = {**NODESET, "apiVersion": "slinky.slurm.net/v1alpha1"}
    (line,) = store.validate_documents([old]).not_checked
    assert "no schema for slinky.slurm.net/v1alpha1 NodeSet" in line and "v1beta1" in line


def test_report_for_documents(store: v.SchemaStore) -> None:
    docs = [
        None,
        NODESET,
        {"apiVersion": "v1", "kind": "List", "items": [CONFIGMAP, with_change(PVC, "spec.x", 1)]},
        "not a mapping",
    ]
    report = store.validate_documents(docs)
    assert report.checked == 3
    assert [str(f) for f in report.findings] == [
        "PersistentVolumeClaim/slurm/statesave: spec.x: unknown field 'x'",
        "document[3]: <root>: not a mapping: str",
    ]
    prefix = "NodeSet (slinky.slurm.net/v1beta1) spec.updateStrategy: CEL rule not evaluated offline"
    assert any(line.startswith(prefix) for line in report.skipped_rules)
    assert not report.ok
    assert store.validate_documents([NODESET, CONFIGMAP]).ok


def test_missing_kind(store: v.SchemaStore) -> None:
    assert [f.message for f in store.validate_object({"metadata": {"name": "x"}})] == [
        "apiVersion and kind must be non-empty strings"
    ]


# --------------------------------------------------------------------------- Flux, Argo CD

HELMRELEASE = {
    "apiVersion": "helm.toolkit.fluxcd.io/v2",
    "kind": "HelmRelease",
    "metadata": {"name": "slurm", "namespace": "slurm"},
    "spec": {
        "interval": "10m",
        "chart": {
            "spec": {
                "chart": "slurm",
                "version": "1.0.x",
                "sourceRef": {"kind": "HelmRepository", "name": "slinky", "namespace": "flux-system"},
            }
        },
        "install": {"createNamespace": True, "remediation": {"retries": 3}},
        "values": {"anything": {"goes": [1, 2]}},
    },
}
APPLICATION = {
    "apiVersion": "argoproj.io/v1alpha1",
    "kind": "Application",
    "metadata": {"name": "slurm", "namespace": "argocd"},
    "spec": {
        "project": "default",
        "source": {
            "repoURL": "ghcr.io/slinkyproject/charts",
            "chart": "slurm",
            "targetRevision": "1.0.0",
            "helm": {"releaseName": "slurm", "valuesObject": {"free": {"form": True}}},
        },
        "destination": {"server": "https://kubernetes.default.svc", "namespace": "slurm"},
        "syncPolicy": {
            "automated": {"prune": True, "selfHeal": True},
            "syncOptions": ["CreateNamespace=true"],
        },
    },
}


@pytest.mark.parametrize("obj", [HELMRELEASE, APPLICATION], ids=["HelmRelease", "Application"])
def test_gitops_objects_pass(obj: dict[str, Any], store: v.SchemaStore) -> None:
    assert store.validate_object(obj) == []


@pytest.mark.parametrize(
    ("obj", "path", "value", "expected"),
    [
        (HELMRELEASE, "spec.interval", "10 minutes", "spec.interval"),
        (HELMRELEASE, "spec.chart.spec.sourceRef.kind", "OCIRepository", "spec.chart.spec.sourceRef.kind"),
        (HELMRELEASE, "spec.install.createNamespaces", True, "spec.install.createNamespaces"),
        (APPLICATION, "spec.source.helm.valueFile", ["v.yaml"], "spec.source.helm.valueFile"),
        (APPLICATION, "spec.syncPolicy.automated.prune", "yes", "spec.syncPolicy.automated.prune"),
        (APPLICATION, "metadata.annotations", {"a": 1}, "metadata.annotations.a"),
    ],
)
def test_gitops_broken_objects_fail(
    obj: dict[str, Any], path: str, value: Any, expected: str, store: v.SchemaStore
) -> None:
    assert paths(store.validate_object(with_change(obj, path, value))) == [expected]


def test_application_requires_spec(store: v.SchemaStore) -> None:
    findings = store.validate_object({k: APPLICATION[k] for k in ("apiVersion", "kind", "metadata")})
    assert paths(findings) == [""] and "spec" in findings[0].message


# --------------------------------------------------------------------------- helmfile

HELMFILE = {
    "repositories": [{"name": "slinky", "url": "ghcr.io/slinkyproject/charts", "oci": True}],
    "releases": [
        {
            "name": "slurm",
            "namespace": "slurm",
            "chart": "slinky/slurm",
            "version": "1.0.0",
            "createNamespace": True,
            "values": ["values.yaml"],
        }
    ],
}


def test_helmfile_passes(store: v.SchemaStore) -> None:
    assert store.validate_helmfile(HELMFILE) == []


def test_helmfile_bad_type_fails(store: v.SchemaStore) -> None:
    broken = with_change(HELMFILE, "releases.0.createNamespace", "yes")
    findings = store.validate_helmfile(broken)
    assert paths(findings) == ["releases[0].createNamespace"]
    assert findings[0].obj == "helmfile"
    assert paths(store.validate_helmfile({"releases": [{"chart": "x"}]})) == ["releases[0]"]


# --------------------------------------------------------------------------- module API, env


def test_module_functions_use_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(v.SCHEMAS_ENV, str(SCHEMAS))
    assert v.validate_object(CONFIGMAP) == []
    assert v.validate_documents([NODESET]).ok
    assert v.validate_helmfile(HELMFILE) == []
    assert v.default_store() is v.default_store(SCHEMAS)


def test_no_schema_folder_is_an_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(v.SCHEMAS_ENV, raising=False)
    with pytest.raises(FileNotFoundError):
        v.resolve_schema_dir()
    with pytest.raises(FileNotFoundError):
        v.resolve_schema_dir(tmp_path / "missing")


def test_remote_refs_are_never_fetched(tmp_path: Path) -> None:
    (tmp_path / "helmfile").mkdir()
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "properties": {"releases": {"$ref": "https://json.schemastore.org/elsewhere.json"}},
    }
    (tmp_path / "helmfile" / "helmfile.json").write_text(json.dumps(schema))
    findings = v.SchemaStore.from_dir(tmp_path).validate_helmfile({"releases": []})
    assert [f.message.split(":")[0] for f in findings] == ["schema error"]
    assert "elsewhere.json" in findings[0].message
