"""slinky-slurm: the Slinky custom resources, and the mounts every LoginSet and NodeSet is guaranteed.

Invariants over rendered sets come from :mod:`slinkykit.conformance` (every mount resolves to a
volume, no duplicate volume names or mount paths, the Enroot files and the shared claims mounted
exactly once); CRD and core Container/PodSpec validation from :mod:`slinkykit.validation`.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from slinkykit import CHARTS_DIR, MAIN_CHART, PRE_CHART, conformance
from slinkykit.conformance import Rendered, Result
from slinkykit.helm import Helm, HelmError
from slinkykit.pytest_plugin import RenderChart, record_renders
from slinkykit.recipe import deep_merge
from slinkykit.validation import SCHEMAS_ENV, SchemaStore, default_store

STORAGE = {"storage": {"enabled": True, "sharedStorageClass": "efs-sc"}}
ENROOT_PATHS = ["/etc/enroot/enroot.conf", "/etc/enroot/environ.d/99-aicr-defaults.env"]
SET_CONTAINER = {"LoginSet": "login", "NodeSet": "slurmd"}
ConformanceCheck = Callable[..., Result]
#: The project's schema folder next to the repository, unless --slinkykit-schemas or $SLINKYKIT_SCHEMAS says otherwise.
DEFAULT_SCHEMAS = Path(__file__).resolve().parents[2] / "shared" / "schemas"


@pytest.fixture(scope="session")
def schema_store(pytestconfig: pytest.Config) -> SchemaStore:
    """The plugin's fixture, defaulting to the shared schema folder so a bare pytest run validates too."""
    chosen = pytestconfig.getoption("--slinkykit-schemas") or os.environ.get(SCHEMAS_ENV) or DEFAULT_SCHEMAS
    try:
        return default_store(chosen)
    except FileNotFoundError as exc:
        pytest.fail(f"{exc}: custom resources cannot be validated", pytrace=False)


# --- helpers ------------------------------------------------------------------------------------


def by_kind(objs: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [o for o in objs if o["kind"] == kind]


def one(objs: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    found = [o for o in objs if o["kind"] == kind and o["metadata"]["name"] == name]
    assert len(found) == 1, f"{kind}/{name}: {len(found)} rendered"
    return found[0]


def container(obj: dict[str, Any]) -> dict[str, Any]:
    """The login container of a LoginSet, the slurmd container of a NodeSet."""
    c: dict[str, Any] = obj["spec"][SET_CONTAINER[obj["kind"]]]
    return c


def volumes(obj: dict[str, Any]) -> list[dict[str, Any]]:
    return list(obj["spec"]["template"]["spec"].get("volumes", []))


def mounts_by_path(obj: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {m["mountPath"]: m for m in container(obj).get("volumeMounts", [])}


def violations(rendered: Rendered) -> list[str]:
    """Every conformance invariant over a render of both charts."""
    return [str(v) for v in conformance.check(rendered)]


def render_both(render_chart: RenderChart, values: Any) -> Rendered:
    """Both charts from one values file, with the release names the deployers use."""
    return Rendered(render_chart(PRE_CHART, values), render_chart(MAIN_CHART, values))


def fails(render_chart: RenderChart, values: Any = None, **kw: Any) -> str:
    """The chart's one-line error for values it must refuse."""
    with pytest.raises(HelmError) as exc:
        render_chart(MAIN_CHART, values, **kw)
    message = exc.value.message
    assert "\n" not in message
    return message


def names_path(message: str, dotted: str) -> bool:
    """Helm 3 names schema paths dotted (``a.b.0``), Helm 4 as pointers (``'/a/b/0'``); fail messages dotted."""
    return dotted in message or f"'/{dotted.replace('.', '/')}'" in message


# --- both charts from one values file: every scenario conforms ----------------------------------

SCENARIOS: dict[str, dict[str, Any]] = {
    "defaults": {},
    "storage-on": STORAGE,
    "extra-sets": deep_merge(
        STORAGE,
        {
            "loginsets": {"admins": {"replicas": 2, "service": {"spec": {"type": "LoadBalancer"}}}},
            "nodesets": {
                "gpu-a100": {
                    "replicas": 4,
                    "extraConf": "Features=gpu Gres=gpu:8",
                    "partition": {"config": "State=UP MaxTime=24:00:00"},
                    "slurmd": {"resources": {"limits": {"nvidia.com/gpu": 8}}},
                    "podSpec": {
                        "nodeSelector": {"nvidia.com/gpu.present": "true"},
                        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                    },
                },
                "cpu": {"replicas": 2, "scalingMode": "StatefulSet", "ssh": {"enabled": True}},
            },
        },
    ),
    "user-volumes": deep_merge(
        STORAGE,
        {
            "nodesetDefaults": {
                "podSpec": {"volumes": [{"name": "tmp", "emptyDir": {}}]},
                "slurmd": {"volumeMounts": [{"name": "tmp", "mountPath": "/tmp/scratch"}]},
            },
            "loginsetDefaults": {
                "podSpec": {"volumes": [{"name": "motd", "configMap": {"name": "motd"}}]},
                "login": {"volumeMounts": [{"name": "motd", "mountPath": "/etc/motd", "subPath": "motd"}]},
            },
            "nodesets": {
                "gpu": {
                    "podSpec": {"volumes": [{"name": "models", "nfs": {"server": "nfs.local", "path": "/models"}}]},
                    "slurmd": {"volumeMounts": [{"name": "models", "mountPath": "/models", "readOnly": True}]},
                }
            },
            "loginsets": {
                "slinky": {
                    "podSpec": {"volumes": [{"name": "models", "nfs": {"server": "nfs.local", "path": "/models"}}]},
                    "login": {"volumeMounts": [{"name": "models", "mountPath": "/models"}]},
                }
            },
        },
    ),
    "user-repeats-shared-entries": deep_merge(
        STORAGE,
        {
            "nodesetDefaults": {
                "podSpec": {
                    "volumes": [{"name": "shared-home", "persistentVolumeClaim": {"claimName": "shared-home"}}]
                },
                "slurmd": {"volumeMounts": [{"name": "shared-home", "mountPath": "/home"}]},
            },
            "nodesets": {
                "slinky": {
                    "podSpec": {
                        "volumes": [{"name": "shared-home", "persistentVolumeClaim": {"claimName": "shared-home"}}]
                    },
                    "slurmd": {
                        "volumeMounts": [
                            {
                                "name": "enroot-config",
                                "mountPath": "/etc/enroot/enroot.conf",
                                "subPath": "enroot.conf",
                                "readOnly": True,
                            }
                        ]
                    },
                }
            },
        },
    ),
    "custom-claims": {
        "storage": {
            "enabled": True,
            "sharedStorageClass": "",
            "home": {"name": "lab-home", "storageClassName": "netapp", "mountPath": "/users"},
            "data": {"name": "lab-data", "storageClassName": "weka", "mountPath": "/data"},
        }
    },
    "storage-off-user-home": {
        "nodesets": {
            "slinky": {
                "podSpec": {"volumes": [{"name": "home", "hostPath": {"path": "/home"}}]},
                "slurmd": {"volumeMounts": [{"name": "home", "mountPath": "/home"}]},
            }
        },
    },
    "secret-refs-and-pod-settings": {
        "slurmKeyRef": {"create": False, "name": "vault-slurm", "key": "slurm.key"},
        "jwtKeyRef": {"create": False, "name": "vault-jwt", "key": "hs256"},
        "sssd": {"secretRef": {"name": "ldap-sssd", "key": "sssd.conf"}},
        "imagePullSecrets": [{"name": "regcred"}],
        "priorityClassName": "slurm-critical",
    },
    "pinned-digests": {"nodesetDefaults": {"slurmd": {"image": {"digest": "sha256:" + "a" * 64}}}},
}


@pytest.mark.parametrize("values", SCENARIOS.values(), ids=SCENARIOS.keys())
def test_scenario_conforms(conformance_check: ConformanceCheck, values: dict[str, Any]) -> None:
    """Both charts, one values file: invariants hold, every object passes its schema, renders repeat."""
    result = conformance_check(values)
    assert result.ok, "\n".join(result.lines())


@pytest.mark.parametrize("values", SCENARIOS.values(), ids=SCENARIOS.keys())
def test_scenario_sets_mount_enroot_files_and_claims(render_chart: RenderChart, values: dict[str, Any]) -> None:
    """Each mount resolves to the volume it must: the Enroot ConfigMap, the claim the values name."""
    objs = render_chart(MAIN_CHART, values)
    storage = deep_merge(
        {"storage": yaml.safe_load((CHARTS_DIR / MAIN_CHART / "values.yaml").read_text())["storage"]}, values
    )["storage"]
    claims = {storage[k]["mountPath"]: storage[k]["name"] for k in ("home", "data")} if storage["enabled"] else {}
    sets = by_kind(objs, "LoginSet") + by_kind(objs, "NodeSet")
    assert sets
    for obj in sets:
        mounts = mounts_by_path(obj)
        vols = {v["name"]: v for v in volumes(obj)}
        for path in ENROOT_PATHS:
            assert vols[mounts[path]["name"]]["configMap"] == {"name": "slinky-slurm-enroot-config"}
        for path, claim in claims.items():
            assert vols[mounts[path]["name"]]["persistentVolumeClaim"] == {"claimName": claim}


# --- what the chart renders ---------------------------------------------------------------------


class TestDefaults:
    def test_names_follow_the_release(self, render_chart: RenderChart) -> None:
        objs = render_chart(MAIN_CHART)
        assert [(o["kind"], o["metadata"]["name"]) for o in objs if o["apiVersion"].startswith("slinky")] == [
            ("Controller", "slinky-slurm"),
            ("LoginSet", "slinky-slurm-login-slinky"),
            ("NodeSet", "slinky-slurm-worker-slinky"),
            ("RestApi", "slinky-slurm"),
        ]
        for obj in objs:
            if obj["apiVersion"].startswith("slinky"):
                assert obj["apiVersion"] == "slinky.slurm.net/v1beta1"
                assert obj["metadata"]["namespace"] == "slurm"
            if obj["kind"] in ("LoginSet", "NodeSet", "RestApi"):
                assert obj["spec"]["controllerRef"] == {"name": "slinky-slurm"}

    @pytest.mark.parametrize(
        ("release", "fullname"), [("prod", "prod-slinky-slurm"), ("slinky-slurm-a", "slinky-slurm-a")]
    )
    def test_fullname_adds_the_chart_name_unless_present(
        self, render_chart: RenderChart, release: str, fullname: str
    ) -> None:
        objs = render_chart(MAIN_CHART, release=release)
        assert one(objs, "Controller", fullname)
        assert one(objs, "NodeSet", f"{fullname}-worker-slinky")
        assert one(objs, "LoginSet", f"{fullname}-login-slinky")

    def test_pyxis_images_and_pinned_sidecars(self, render_chart: RenderChart) -> None:
        objs = render_chart(MAIN_CHART)
        login = one(objs, "LoginSet", "slinky-slurm-login-slinky")["spec"]
        worker = one(objs, "NodeSet", "slinky-slurm-worker-slinky")["spec"]
        assert login["login"]["image"].startswith("ghcr.io/slinkyproject/login-pyxis:")
        assert worker["slurmd"]["image"].startswith("ghcr.io/slinkyproject/slurmd-pyxis:")
        assert login["login"]["securityContext"] == {"privileged": True}  # Enroot in the login container
        images = []
        for obj in objs:
            for key, value in obj.get("spec", {}).items():
                if isinstance(value, dict) and "image" in value:
                    images.append((obj["kind"], key, value["image"]))
        assert {key for _, key, _ in images} >= {
            "slurmctld",
            "reconfigure",
            "logfile",
            "slurmrestd",
            "login",
            "initconf",
            "slurmd",
        }
        for kind, key, image in images:
            tag = image.rsplit("/", 1)[-1].partition(":")[2]
            assert tag and tag != "latest", f"{kind}.{key}: {image} is not pinned"

    def test_no_shared_claim_and_no_enroot_configmap(self, render_chart: RenderChart) -> None:
        """Those belong to the pre release."""
        objs = render_chart(MAIN_CHART, STORAGE)
        assert by_kind(objs, "PersistentVolumeClaim") == []
        assert "slinky-slurm-enroot-config" not in [o["metadata"]["name"] for o in by_kind(objs, "ConfigMap")]

    def test_mounts_without_storage(self, render_chart: RenderChart) -> None:
        objs = render_chart(MAIN_CHART)
        for obj in by_kind(objs, "LoginSet") + by_kind(objs, "NodeSet"):
            assert mounts_by_path(obj) == {
                "/etc/enroot/enroot.conf": {
                    "name": "enroot-config",
                    "mountPath": "/etc/enroot/enroot.conf",
                    "subPath": "enroot.conf",
                    "readOnly": True,
                },
                "/etc/enroot/environ.d/99-aicr-defaults.env": {
                    "name": "enroot-config",
                    "mountPath": "/etc/enroot/environ.d/99-aicr-defaults.env",
                    "subPath": "99-aicr-defaults.env",
                    "readOnly": True,
                },
            }
            assert volumes(obj) == [{"name": "enroot-config", "configMap": {"name": "slinky-slurm-enroot-config"}}]

    def test_mounts_with_storage(self, render_chart: RenderChart) -> None:
        objs = render_chart(MAIN_CHART, STORAGE)
        for obj in by_kind(objs, "LoginSet") + by_kind(objs, "NodeSet"):
            mounts = mounts_by_path(obj)
            assert mounts["/home"] == {"name": "shared-home", "mountPath": "/home"}
            assert mounts["/scratch/fsw"] == {"name": "shared-data", "mountPath": "/scratch/fsw"}
            assert {"name": "shared-home", "persistentVolumeClaim": {"claimName": "shared-home"}} in volumes(obj)
            assert {"name": "shared-data", "persistentVolumeClaim": {"claimName": "shared-data"}} in volumes(obj)

    def test_claims_match_what_the_pre_release_renders(self, render_chart: RenderChart) -> None:
        values = SCENARIOS["custom-claims"]
        both = render_both(render_chart, values)
        claims = {c["metadata"]["name"] for c in by_kind(both.pre, "PersistentVolumeClaim")}
        assert claims == {"lab-home", "lab-data"}
        for obj in by_kind(both.main, "NodeSet"):
            assert {
                v["persistentVolumeClaim"]["claimName"] for v in volumes(obj) if "persistentVolumeClaim" in v
            } == claims
            assert {"/users", "/data"} <= set(mounts_by_path(obj))
        assert violations(both) == []

    def test_controller_persistence_uses_the_generic_class(self, render_chart: RenderChart) -> None:
        values = deep_merge(STORAGE, {"controller": {"persistence": {"storageClassName": "gp3"}}})
        spec = one(render_chart(MAIN_CHART, values), "Controller", "slinky-slurm")["spec"]
        assert spec["persistence"] == {
            "enabled": True,
            "storageClassName": "gp3",
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "4Gi"}},
        }

    def test_controller_persistence_defaults_to_the_cluster_default_class(self, render_chart: RenderChart) -> None:
        spec = one(render_chart(MAIN_CHART, STORAGE), "Controller", "slinky-slurm")["spec"]
        assert "storageClassName" not in spec["persistence"]  # never the shared RWX class
        off = {"controller": {"persistence": {"enabled": False}}}
        assert one(render_chart(MAIN_CHART, off), "Controller", "slinky-slurm")["spec"]["persistence"] == {
            "enabled": False
        }

    def test_cluster_name_stays_a_string(self, render_chart: RenderChart) -> None:
        spec = one(render_chart(MAIN_CHART, {"clusterName": "042"}), "Controller", "slinky-slurm")["spec"]
        assert spec["clusterName"] == "042"

    def test_shared_blocks_default_like_the_pre_chart(self) -> None:
        main = yaml.safe_load((CHARTS_DIR / MAIN_CHART / "values.yaml").read_text())
        pre = yaml.safe_load((CHARTS_DIR / PRE_CHART / "values.yaml").read_text())
        assert (main["storage"], main["enroot"]) == (pre["storage"], pre["enroot"])

    def test_pre_chart_accepts_exactly_this_charts_top_level_keys(self) -> None:
        common = json.loads((CHARTS_DIR / "slinkykit-lib" / "values.common.schema.json").read_text())
        for chart in (MAIN_CHART, PRE_CHART):
            schema = json.loads((CHARTS_DIR / chart / "values.schema.json").read_text())
            assert set(schema["properties"]) == set(common["sharedTopLevelKeys"]), chart


class TestSetMerging:
    def test_lists_are_appended_after_the_defaults(self, render_chart: RenderChart) -> None:
        values = {
            "nodesetDefaults": {
                "slurmd": {"env": [{"name": "A", "value": "1"}]},
                "podSpec": {"tolerations": [{"key": "a", "operator": "Exists"}]},
            },
            "nodesets": {
                "gpu": {
                    "slurmd": {"env": [{"name": "B", "value": "2"}]},
                    "podSpec": {"tolerations": [{"key": "b", "operator": "Exists"}]},
                }
            },
        }
        gpu = one(render_chart(MAIN_CHART, values), "NodeSet", "slinky-slurm-worker-gpu")["spec"]
        assert [e["name"] for e in gpu["slurmd"]["env"]] == ["A", "B"]
        assert [t["key"] for t in gpu["template"]["spec"]["tolerations"]] == ["a", "b"]

    def test_maps_merge_and_other_values_are_replaced(self, render_chart: RenderChart) -> None:
        values = {
            "nodesets": {
                "gpu": {"replicas": 3, "podSpec": {"nodeSelector": {"gpu": "true"}}, "partition": {"enabled": False}}
            }
        }
        gpu = one(render_chart(MAIN_CHART, values), "NodeSet", "slinky-slurm-worker-gpu")["spec"]
        assert gpu["replicas"] == 3
        assert gpu["template"]["spec"]["nodeSelector"] == {"kubernetes.io/os": "linux", "gpu": "true"}
        assert gpu["partition"] == {"enabled": False, "config": "State=UP MaxTime=UNLIMITED"}

    def test_zero_replicas_is_kept_and_a_dropped_default_is_left_to_the_operator(
        self, render_chart: RenderChart
    ) -> None:
        values = {"nodesetDefaults": {"replicas": None}, "nodesets": {"idle": {"replicas": 0}}}
        objs = render_chart(MAIN_CHART, values)
        assert one(objs, "NodeSet", "slinky-slurm-worker-idle")["spec"]["replicas"] == 0
        assert "replicas" not in one(objs, "NodeSet", "slinky-slurm-worker-slinky")["spec"]

    def test_one_set_does_not_leak_into_another(self, render_chart: RenderChart) -> None:
        values = {
            "nodesets": {
                "a": {
                    "slurmd": {"env": [{"name": "ONLY_A", "value": "1"}]},
                    "podSpec": {"volumes": [{"name": "va", "emptyDir": {}}]},
                },
                "b": {},
            }
        }
        objs = render_chart(MAIN_CHART, values)
        b = one(objs, "NodeSet", "slinky-slurm-worker-b")
        assert "env" not in b["spec"]["slurmd"]
        assert [v["name"] for v in volumes(b)] == ["enroot-config"]

    def test_declared_set_is_enabled_unless_disabled(self, render_chart: RenderChart) -> None:
        values = {
            "nodesets": {"on": {}, "off": {"enabled": False}, "slinky": None},
            "loginsets": {"slinky": {"enabled": False}},
        }
        objs = render_chart(MAIN_CHART, values)
        assert [o["metadata"]["name"] for o in by_kind(objs, "NodeSet")] == ["slinky-slurm-worker-on"]
        assert by_kind(objs, "LoginSet") == []

    def test_set_image_overrides_the_defaults(self, render_chart: RenderChart) -> None:
        values = {
            "nodesets": {
                "gpu": {"slurmd": {"image": {"repository": "registry.local/slurmd", "tag": "25.11-ubuntu24.04"}}}
            }
        }
        objs = render_chart(MAIN_CHART, values)
        assert (
            container(one(objs, "NodeSet", "slinky-slurm-worker-gpu"))["image"]
            == "registry.local/slurmd:25.11-ubuntu24.04"
        )
        assert container(one(objs, "NodeSet", "slinky-slurm-worker-slinky"))["image"].startswith(
            "ghcr.io/slinkyproject/slurmd-pyxis:"
        )

    @pytest.mark.parametrize(
        ("image", "rendered"),
        [
            ({"tag": "", "digest": "sha256:" + "b" * 64}, "ghcr.io/slinkyproject/slurmd-pyxis@sha256:" + "b" * 64),
            (
                {"digest": "sha256:" + "b" * 64},
                "ghcr.io/slinkyproject/slurmd-pyxis:25.11-ubuntu24.04@sha256:" + "b" * 64,
            ),
        ],
    )
    def test_digest_pins_the_image(self, render_chart: RenderChart, image: dict[str, str], rendered: str) -> None:
        values = {"nodesetDefaults": {"slurmd": {"image": image}}}
        assert (
            container(one(render_chart(MAIN_CHART, values), "NodeSet", "slinky-slurm-worker-slinky"))["image"]
            == rendered
        )

    def test_volume_claim_template_mounts_resolve(self, render_chart: RenderChart) -> None:
        values = {
            "nodesets": {
                "gpu": {
                    "volumeClaimTemplates": [
                        {
                            "metadata": {"name": "local"},
                            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
                        }
                    ],
                    "slurmd": {"volumeMounts": [{"name": "local", "mountPath": "/local"}]},
                }
            }
        }
        gpu = one(render_chart(MAIN_CHART, values), "NodeSet", "slinky-slurm-worker-gpu")
        assert gpu["spec"]["volumeClaimTemplates"][0]["metadata"]["name"] == "local"
        assert mounts_by_path(gpu)["/local"]["name"] == "local"


class TestUserMountsKeptBesideOurs:
    def test_set_and_defaults_entries_are_kept(self, render_chart: RenderChart) -> None:
        objs = render_chart(MAIN_CHART, SCENARIOS["user-volumes"])
        gpu = one(objs, "NodeSet", "slinky-slurm-worker-gpu")
        assert [v["name"] for v in volumes(gpu)] == ["tmp", "models", "enroot-config", "shared-home", "shared-data"]
        assert list(mounts_by_path(gpu)) == ["/tmp/scratch", "/models", *ENROOT_PATHS, "/home", "/scratch/fsw"]
        login = one(objs, "LoginSet", "slinky-slurm-login-slinky")
        assert [v["name"] for v in volumes(login)] == ["motd", "models", "enroot-config", "shared-home", "shared-data"]
        slinky = one(objs, "NodeSet", "slinky-slurm-worker-slinky")
        assert [v["name"] for v in volumes(slinky)] == ["tmp", "enroot-config", "shared-home", "shared-data"]

    def test_identical_entries_are_not_duplicated(self, render_chart: RenderChart) -> None:
        both = render_both(render_chart, SCENARIOS["user-repeats-shared-entries"])
        slinky = one(both.main, "NodeSet", "slinky-slurm-worker-slinky")
        assert [v["name"] for v in volumes(slinky)] == ["enroot-config", "shared-home", "shared-data"]
        assert list(mounts_by_path(slinky)) == [*ENROOT_PATHS, "/home", "/scratch/fsw"]
        assert violations(both) == []

    def test_trailing_slash_is_the_same_path(self, render_chart: RenderChart) -> None:
        values = deep_merge(
            STORAGE,
            {"nodesets": {"slinky": {"slurmd": {"volumeMounts": [{"name": "shared-home", "mountPath": "/home/"}]}}}},
        )
        slinky = one(render_chart(MAIN_CHART, values), "NodeSet", "slinky-slurm-worker-slinky")
        assert [m["mountPath"] for m in container(slinky)["volumeMounts"]].count("/home") == 1
        assert "/home/" not in mounts_by_path(slinky)

    def test_without_storage_home_is_free(self, render_chart: RenderChart) -> None:
        objs = render_chart(MAIN_CHART, SCENARIOS["storage-off-user-home"])
        assert mounts_by_path(one(objs, "NodeSet", "slinky-slurm-worker-slinky"))["/home"]["name"] == "home"


class TestConflictsFail:
    @pytest.mark.parametrize(
        ("values", "path", "fix"),
        [
            (
                deep_merge(
                    STORAGE,
                    {
                        "nodesets": {
                            "gpu": {
                                "podSpec": {"volumes": [{"name": "nfs", "nfs": {"server": "x", "path": "/"}}]},
                                "slurmd": {"volumeMounts": [{"name": "nfs", "mountPath": "/home"}]},
                            }
                        }
                    },
                ),
                "nodesets.gpu.slurmd.volumeMounts[0]",
                "change storage.home.mountPath",
            ),
            (
                deep_merge(
                    STORAGE,
                    {
                        "loginsetDefaults": {
                            "login": {
                                "volumeMounts": [{"name": "shared-data", "mountPath": "/scratch/fsw", "readOnly": True}]
                            }
                        }
                    },
                ),
                "loginsetDefaults.login.volumeMounts[0]",
                "change storage.data.mountPath",
            ),
            (
                deep_merge(
                    STORAGE,
                    {
                        "nodesets": {
                            "gpu": {
                                "podSpec": {
                                    "volumes": [
                                        {"name": "shared-home", "persistentVolumeClaim": {"claimName": "other"}}
                                    ]
                                }
                            }
                        }
                    },
                ),
                "nodesets.gpu.podSpec.volumes[0]",
                "rename it",
            ),
            (
                {
                    "loginsets": {
                        "slinky": {"podSpec": {"volumes": [{"name": "enroot-config", "configMap": {"name": "mine"}}]}}
                    }
                },
                "loginsets.slinky.podSpec.volumes[0]",
                "rename it",
            ),
            (
                {
                    "nodesetDefaults": {
                        "podSpec": {"volumes": [{"name": "e", "configMap": {"name": "mine"}}]},
                        "slurmd": {"volumeMounts": [{"name": "e", "mountPath": "/etc/enroot/enroot.conf"}]},
                    }
                },
                "nodesetDefaults.slurmd.volumeMounts[0]",
                "enroot.config",
            ),
            (
                {
                    "nodesets": {
                        "gpu": {
                            "slurmd": {
                                "volumeMounts": [
                                    {
                                        "name": "enroot-config",
                                        "mountPath": ENROOT_PATHS[1],
                                        "subPath": "enroot.conf",
                                        "readOnly": True,
                                    }
                                ]
                            }
                        }
                    }
                },
                "nodesets.gpu.slurmd.volumeMounts[0]",
                "remove it",
            ),
            (
                deep_merge(
                    STORAGE,
                    {
                        "nodesets": {
                            "gpu": {
                                "volumeClaimTemplates": [
                                    {
                                        "metadata": {"name": "shared-data"},
                                        "spec": {
                                            "accessModes": ["ReadWriteOnce"],
                                            "resources": {"requests": {"storage": "1Gi"}},
                                        },
                                    }
                                ]
                            }
                        }
                    },
                ),
                "nodesets.gpu.volumeClaimTemplates[0]",
                "rename it",
            ),
        ],
        ids=[
            "mount-at-home",
            "defaults-mount-at-data",
            "shared-volume-name",
            "enroot-volume-name",
            "mount-at-enroot-file",
            "enroot-key-at-other-path",
            "claim-template-name",
        ],
    )
    def test_conflict_with_ours_names_set_entry_and_fix(
        self, render_chart: RenderChart, values: dict[str, Any], path: str, fix: str
    ) -> None:
        message = fails(render_chart, values)
        assert message.startswith(path + ": ")
        assert fix in message

    def test_conflicting_user_volumes_name_both(self, render_chart: RenderChart) -> None:
        values = {
            "nodesetDefaults": {"podSpec": {"volumes": [{"name": "cache", "emptyDir": {}}]}},
            "nodesets": {"gpu": {"podSpec": {"volumes": [{"name": "cache", "hostPath": {"path": "/cache"}}]}}},
        }
        message = fails(render_chart, values)
        assert message.startswith("nodesets.gpu.podSpec.volumes[0]: ")
        assert "nodesetDefaults.podSpec.volumes[0]" in message and "rename one" in message

    def test_two_user_mounts_at_one_path(self, render_chart: RenderChart) -> None:
        values = {
            "nodesets": {
                "gpu": {
                    "podSpec": {"volumes": [{"name": "one", "emptyDir": {}}, {"name": "two", "emptyDir": {}}]},
                    "slurmd": {
                        "volumeMounts": [{"name": "one", "mountPath": "/x"}, {"name": "two", "mountPath": "/x"}]
                    },
                }
            }
        }
        message = fails(render_chart, values)
        assert message.startswith("nodesets.gpu.slurmd.volumeMounts[1]: ")
        assert "nodesets.gpu.slurmd.volumeMounts[0]" in message

    def test_mount_of_a_missing_volume(self, render_chart: RenderChart) -> None:
        values = {"loginsets": {"slinky": {"login": {"volumeMounts": [{"name": "nowhere", "mountPath": "/x"}]}}}}
        message = fails(render_chart, values)
        assert message.startswith("loginsets.slinky.login.volumeMounts[0]: ")
        assert "loginsets.slinky.podSpec.volumes" in message

    def test_defaults_mount_may_use_a_volume_of_the_set(self, render_chart: RenderChart) -> None:
        values: dict[str, Any] = {
            "nodesetDefaults": {"slurmd": {"volumeMounts": [{"name": "cache", "mountPath": "/cache"}]}},
            "nodesets": {"slinky": {"podSpec": {"volumes": [{"name": "cache", "emptyDir": {}}]}}},
        }
        assert render_chart(MAIN_CHART, values)
        with_gpu = deep_merge(values, {"nodesets": {"gpu": {}}})  # a set without the volume
        assert fails(render_chart, with_gpu).startswith("nodesetDefaults.slurmd.volumeMounts[0]: ")


# --- secrets ------------------------------------------------------------------------------------


class TestKeys:
    def test_default_references_precreated_secrets(self, render_chart: RenderChart) -> None:
        objs = render_chart(MAIN_CHART)
        spec = one(objs, "Controller", "slinky-slurm")["spec"]
        assert spec["slurmKeyRef"] == {"name": "slinky-slurm-auth-slurm", "key": "slurm.key"}
        assert spec["jwtKeyRef"] == {"name": "slinky-slurm-auth-jwt", "key": "jwt.key"}
        assert [s["metadata"]["name"] for s in by_kind(objs, "Secret")] == ["slinky-slurm-sssd-conf"]

    def test_default_render_is_byte_identical(self, helm: Helm) -> None:
        chart = CHARTS_DIR / MAIN_CHART
        try:
            first = helm.template(chart, [], release=MAIN_CHART, namespace="slurm")
            second = helm.template(chart, [], release=MAIN_CHART, namespace="slurm")
        finally:
            record_renders(helm, 2, test=True)
        assert first == second and "kind: Controller" in first

    def test_references_with_own_names(self, render_chart: RenderChart) -> None:
        values = {"slurmKeyRef": {"name": "vault-slurm", "key": "k"}, "jwtKeyRef": {"name": "vault-jwt", "key": "j"}}
        spec = one(render_chart(MAIN_CHART, values), "Controller", "slinky-slurm")["spec"]
        assert (spec["slurmKeyRef"], spec["jwtKeyRef"]) == (
            {"name": "vault-slurm", "key": "k"},
            {"name": "vault-jwt", "key": "j"},
        )

    def test_create_renders_kept_random_keys(self, render_chart: RenderChart) -> None:
        values = {"slurmKeyRef": {"create": True}, "jwtKeyRef": {"create": True}}
        objs = render_chart(MAIN_CHART, values)
        slurm = one(objs, "Secret", "slinky-slurm-auth-slurm")
        jwt = one(objs, "Secret", "slinky-slurm-auth-jwt")
        assert len(base64.b64decode(slurm["data"]["slurm.key"])) == 1024
        assert len(base64.b64decode(jwt["data"]["jwt.key"])) == 32
        for secret in (slurm, jwt):
            assert secret["metadata"]["annotations"]["helm.sh/resource-policy"] == "keep"
        spec = one(objs, "Controller", "slinky-slurm")["spec"]
        assert spec["slurmKeyRef"] == {"name": "slinky-slurm-auth-slurm", "key": "slurm.key"}

    def test_created_secrets_validate(self, render_chart: RenderChart, schema_store: SchemaStore) -> None:
        objs = render_chart(MAIN_CHART, {"slurmKeyRef": {"create": True}, "jwtKeyRef": {"create": True}})
        report = schema_store.validate_documents(objs)
        assert report.ok and len(by_kind(objs, "Secret")) == 3, "\n".join(report.lines())

    def test_create_without_a_cluster_is_not_reproducible(self, render_chart: RenderChart) -> None:
        """Why references are the default: without lookup every render has a new key."""
        values = {"slurmKeyRef": {"create": True}}
        keys = [
            one(render_chart(MAIN_CHART, values), "Secret", "slinky-slurm-auth-slurm")["data"]["slurm.key"]
            for _ in range(2)
        ]
        assert keys[0] != keys[1]

    def test_sssd_conf_rendered_and_referenced(self, render_chart: RenderChart) -> None:
        values = {"nodesets": {"slinky": {"ssh": {"enabled": True}}}}
        objs = render_chart(MAIN_CHART, values)
        secret = one(objs, "Secret", "slinky-slurm-sssd-conf")
        assert base64.b64decode(secret["data"]["sssd.conf"]).decode().startswith("[sssd]\n")
        ref = {"name": "slinky-slurm-sssd-conf", "key": "sssd.conf"}
        assert one(objs, "LoginSet", "slinky-slurm-login-slinky")["spec"]["sssdConfRef"] == ref
        assert one(objs, "NodeSet", "slinky-slurm-worker-slinky")["spec"]["ssh"] == {
            "enabled": True,
            "sssdConfRef": ref,
        }

    def test_sssd_secret_reference(self, render_chart: RenderChart) -> None:
        objs = render_chart(MAIN_CHART, {"sssd": {"secretRef": {"name": "ldap-sssd", "key": "conf"}}})
        assert by_kind(objs, "Secret") == []
        assert one(objs, "LoginSet", "slinky-slurm-login-slinky")["spec"]["sssdConfRef"] == {
            "name": "ldap-sssd",
            "key": "conf",
        }

    def test_empty_sssd_conf_without_reference_fails(self, render_chart: RenderChart) -> None:
        assert fails(render_chart, {"sssd": {"conf": "  \n"}}).startswith("sssd.conf: ")


class TestConfigFiles:
    def test_pyxis_plugstack_is_added(self, render_chart: RenderChart) -> None:
        objs = render_chart(MAIN_CHART, {"configFiles": {"gres.conf": "AutoDetect=nvidia\n"}})
        cm = one(objs, "ConfigMap", "slinky-slurm-config-files")
        assert cm["data"] == {"gres.conf": "AutoDetect=nvidia\n", "plugstack.conf": "include /usr/share/pyxis/*\n"}
        assert one(objs, "Controller", "slinky-slurm")["spec"]["configFileRefs"] == [
            {"name": "slinky-slurm-config-files"}
        ]

    def test_own_plugstack_wins(self, render_chart: RenderChart) -> None:
        objs = render_chart(MAIN_CHART, {"configFiles": {"plugstack.conf": "include /etc/spank/*\n"}})
        assert one(objs, "ConfigMap", "slinky-slurm-config-files")["data"] == {
            "plugstack.conf": "include /etc/spank/*\n"
        }

    def test_slurm_conf_is_refused(self, render_chart: RenderChart) -> None:
        message = fails(render_chart, {"configFiles": {"slurm.conf": "x"}})
        assert message.startswith('configFiles["slurm.conf"]: ') and "controller.extraConf" in message


# --- bad input: one line naming the path --------------------------------------------------------


class TestBadInput:
    @pytest.mark.parametrize(
        ("values", "path"),
        [
            ({"nodesets": {"gpu": "big"}}, "nodesets.gpu"),
            ({"loginsets": {"admins": ["x"]}}, "loginsets.admins"),
            ({"nodesets": {"gpu": {"slurmd": "image"}}}, "nodesets.gpu.slurmd"),
            ({"loginsets": {"slinky": {"login": []}}}, "loginsets.slinky.login"),
            ({"nodesetDefaults": {"logfile": 3}}, "nodesetDefaults.logfile"),
            ({"controller": {"slurmctld": "x"}}, "controller.slurmctld"),
            ({"nodesets": {"gpu": {"podSpec": {"volumes": {"name": "x"}}}}}, "nodesets.gpu.podSpec.volumes"),
            ({"loginsetDefaults": {"podSpec": {"volumes": "x"}}}, "loginsetDefaults.podSpec.volumes"),
            ({"nodesets": {"gpu": {"slurmd": {"volumeMounts": {"name": "x"}}}}}, "nodesets.gpu.slurmd.volumeMounts"),
            ({"loginsets": {"slinky": {"login": {"volumeMounts": "x"}}}}, "loginsets.slinky.login.volumeMounts"),
            ({"nodesets": {"gpu": {"podSpec": {"volumes": [{"emptyDir": {}}]}}}}, "nodesets.gpu.podSpec.volumes.0"),
            (
                {"controller": {"logfile": {"image": {"repository": "alpine", "tag": 3.22}}}},
                "controller.logfile.image.tag",
            ),
        ],
    )
    def test_wrong_type_names_the_path(self, render_chart: RenderChart, values: dict[str, Any], path: str) -> None:
        message = fails(render_chart, values)
        assert names_path(message, path), message

    @pytest.mark.parametrize(
        ("values", "path", "key"),
        [
            ({"nodeset": {"gpu": {}}}, "", "nodeset"),
            ({"accounting": {"enabled": True}}, "", "accounting"),
            ({"nodesets": {"gpu": {"slurmdd": {}}}}, "nodesets.gpu", "slurmdd"),
            ({"nodesetDefaults": {"enabled": False}}, "nodesetDefaults", "enabled"),
            ({"nodesets": {"gpu": {"slurmd": {"name": "x"}}}}, "nodesets.gpu.slurmd", "name"),
            ({"controller": {"persistence": {"size": "8Gi"}}}, "controller.persistence", "size"),
        ],
    )
    def test_unknown_key_names_it(self, render_chart: RenderChart, values: dict[str, Any], path: str, key: str) -> None:
        message = fails(render_chart, values)
        assert key in message and (not path or names_path(message, path)), message

    @pytest.mark.parametrize(
        ("kind", "key"), [("nodesets", "GPU"), ("nodesets", "gpu_a100"), ("loginsets", "a.b"), ("loginsets", "-x")]
    )
    def test_set_key_must_be_a_dns_label(self, render_chart: RenderChart, kind: str, key: str) -> None:
        message = fails(render_chart, {kind: {key: {}}})
        assert message.split(": ", 1)[0] in (f"{kind}.{key}", f'{kind}["{key}"]')
        assert "not a valid set name" in message

    @pytest.mark.parametrize("key", ["gpu", "gpu-a100", "a1", "8x"])
    def test_valid_set_keys(self, render_chart: RenderChart, key: str) -> None:
        assert one(render_chart(MAIN_CHART, {"nodesets": {key: {}}}), "NodeSet", f"slinky-slurm-worker-{key}")

    def test_name_longer_than_a_label_fails(self, render_chart: RenderChart) -> None:
        key = "k" * 44  # slinky-slurm-worker- is 20 characters
        message = fails(render_chart, {"nodesets": {key: {}}})
        assert message.startswith(f"nodesets.{key}: ") and "63" in message
        assert one(render_chart(MAIN_CHART, {"nodesets": {key[:43]: {}}}), "NodeSet", f"slinky-slurm-worker-{key[:43]}")

    @pytest.mark.parametrize(
        ("values", "path"),
        [
            ({"controller": {"slurmctld": {"image": {"tag": "latest"}}}}, "controller.slurmctld.image.tag"),
            ({"nodesets": {"gpu": {"logfile": {"image": {"tag": "latest"}}}}}, "nodesets.gpu.logfile.image.tag"),
            ({"loginsetDefaults": {"login": {"image": {"tag": ""}}}}, "loginsets.slinky.login.image.tag"),
        ],
    )
    def test_unpinned_image_fails(self, render_chart: RenderChart, values: dict[str, Any], path: str) -> None:
        assert fails(render_chart, values).startswith(path + ": ")


# --- NOTES.txt ----------------------------------------------------------------------------------


def notes(render_chart: RenderChart, chart: Path, values: dict[str, Any]) -> str:
    text: str = next(d["notes"] for d in render_chart(chart, values) if "notes" in d)
    return text


class TestNotes:
    def test_says_what_is_mounted_where_and_the_order(self, render_chart: RenderChart,
                                                      notes_chart: Callable[[str], Path]) -> None:
        values = deep_merge(STORAGE, {"storage": {"home": {"mountPath": "/users"}}})
        text = notes(render_chart, notes_chart(MAIN_CHART), values)
        for line in (
            "/etc/enroot/enroot.conf",
            "/etc/enroot/environ.d/99-aicr-defaults.env",
            "/users",
            "PersistentVolumeClaim shared-home",
            "/scratch/fsw",
            "PersistentVolumeClaim shared-data",
        ):
            assert line in text
        flat = " ".join(text.split())
        assert "slinky-slurm-pre release owns these claims and the ConfigMap slinky-slurm-enroot-config" in flat
        assert "Install it first" in flat and "remove it last" in flat
        assert "does not restart any pod" in flat and "pick up a new ConfigMap only when they are replaced" in flat
        assert "srun --container-image=" in text and "grep ^NCCL_DEBUG" in text and "NCCL_DEBUG=WARN" in text
        assert "app.kubernetes.io/instance=slinky-slurm-login-slinky" in text
        assert "app.kubernetes.io/instance=slinky-slurm-worker-slinky" in text

    def test_explains_the_key_secrets(self, render_chart: RenderChart, notes_chart: Callable[[str], Path]) -> None:
        text = notes(render_chart, notes_chart(MAIN_CHART), {})
        assert "create secret generic slinky-slurm-auth-slurm --from-file=slurm.key=" in text
        assert "create secret generic slinky-slurm-auth-jwt --from-file=jwt.key=" in text
        assert "storage.enabled is false" in text
        created = notes(render_chart, notes_chart(MAIN_CHART),
                        {"slurmKeyRef": {"create": True}, "jwtKeyRef": {"create": True}})
        assert "create secret generic" not in created and "helm template" in created


# --- every rendered custom resource against its CRD ---------------------------------------------


def test_every_kind_is_checked_against_its_crd(render_chart: RenderChart, schema_store: SchemaStore) -> None:
    objs = render_chart(MAIN_CHART, SCENARIOS["extra-sets"])
    report = schema_store.validate_documents(objs)
    assert report.ok, "\n".join(report.lines())
    assert report.checked == len(objs)
    assert {o["kind"] for o in objs} == {"Controller", "RestApi", "LoginSet", "NodeSet", "Secret", "ConfigMap"}
    spots = {s.path for s in schema_store.applied_spots("slinky.slurm.net/v1beta1", "NodeSet")}
    assert {"spec.slurmd", "spec.logfile", "spec.template.spec"} <= spots


def test_open_container_fields_are_checked_as_core_containers(
    render_chart: RenderChart, schema_store: SchemaStore
) -> None:
    """The chart passes container contents through; the core Container schema still sees them."""
    objs = render_chart(MAIN_CHART, {"nodesets": {"gpu": {"slurmd": {"resources": {"limits": {"cpu": [1]}}}}}})
    report = schema_store.validate_documents(objs)
    assert [f.path for f in report.findings if f.obj == "NodeSet/slurm/slinky-slurm-worker-gpu"] == [
        "spec.slurmd.resources.limits.cpu"
    ]


@pytest.mark.parametrize(("values", "path"), [
    ({"nodesets": {"gpu": {"slurmd": {"env": [{"name": "X", "value": "a\x80b"}]}}}}, "nodesets.gpu.slurmd:"),
    ({"nodesets": {"gpu": {"podSpec": {"nodeSelector": {"pool": "a\ufffeb"}}}}}, "nodesets.gpu.podSpec:"),
    ({"configFiles": {"gres.conf": "a\x9fb"}}, "configFiles:"),
])
def test_text_yaml_cannot_carry_fails_instead_of_vanishing(render_chart: RenderChart, values: dict[str, Any],
                                                          path: str) -> None:
    """Regression (fuzzing): Helm's toYaml renders nothing for such text; the chart must refuse, naming the path."""
    with pytest.raises(HelmError) as info:
        render_chart(MAIN_CHART, values)
    msg = info.value.message
    # Helm 3 already refuses C1 controls while reading the values; Helm 4 reaches the template.
    assert msg.startswith(path) or msg == "values.schema.json: yaml: control characters are not allowed", msg
