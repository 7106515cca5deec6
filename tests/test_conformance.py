"""The conformance invariants: each holds on real renders and catches the breakage it names."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from slinkykit import conformance as c
from slinkykit.helm import Helm
from slinkykit.pytest_plugin import record_renders
from slinkykit.validation import SchemaStore

STORAGE_ON = {"storage": {"enabled": True, "sharedStorageClass": "efs-sc"},
              "nodesets": {"gpu": {"enabled": True}}, "loginsets": {"ops": {"enabled": True}}}


@pytest.fixture(scope="module")
def rendered(helm: Helm) -> c.Rendered:
    record_renders(helm, 2, test=True)
    return c.render_pair(helm, [STORAGE_ON])


def mutated(r: c.Rendered, change: Callable[[c.Rendered], None]) -> c.Rendered:
    copy_ = c.Rendered(copy.deepcopy(r.pre), copy.deepcopy(r.main))
    change(copy_)
    return copy_


def first_set(r: c.Rendered, kind: str = "NodeSet") -> dict[str, Any]:
    return next(o for o in r.main if o["kind"] == kind)


def container(obj: dict[str, Any]) -> dict[str, Any]:
    return obj["spec"]["slurmd" if obj["kind"] == "NodeSet" else "login"]


def drop_enroot_mount(r: c.Rendered) -> None:
    mounts = container(first_set(r))["volumeMounts"]
    mounts[:] = [m for m in mounts if m["mountPath"] != "/etc/enroot/enroot.conf"]


def writable_enroot_mount(r: c.Rendered) -> None:
    for m in container(first_set(r, "LoginSet"))["volumeMounts"]:
        if m["mountPath"].startswith("/etc/enroot/"):
            m["readOnly"] = False


def drop_home_mount(r: c.Rendered) -> None:
    mounts = container(first_set(r))["volumeMounts"]
    mounts[:] = [m for m in mounts if m["mountPath"] != "/home"]


def dangling_mount(r: c.Rendered) -> None:
    container(first_set(r))["volumeMounts"].append({"name": "nowhere", "mountPath": "/nowhere"})


def duplicate_volume(r: c.Rendered) -> None:
    vols = first_set(r)["spec"]["template"]["spec"]["volumes"]
    vols.append(copy.deepcopy(vols[0]))


def rwo_claim(r: c.Rendered) -> None:
    next(o for o in r.pre if o["kind"] == "PersistentVolumeClaim")["spec"]["accessModes"] = ["ReadWriteOnce"]


def helm_owned_claim(r: c.Rendered) -> None:
    claim = next(o for o in r.pre if o["kind"] == "PersistentVolumeClaim")
    claim["metadata"]["labels"]["app.kubernetes.io/managed-by"] = "Helm"
    del claim["metadata"]["annotations"]["helm.sh/resource-policy"]


def configmap_in_main(r: c.Rendered) -> None:
    r.main.append(copy.deepcopy(next(o for o in r.pre if o["kind"] == "ConfigMap")))


def injected_line(r: c.Rendered) -> None:
    cm = next(o for o in r.pre if o["kind"] == "ConfigMap")
    cm["data"]["99-aicr-defaults.env"] += "ENROOT_X=1\nbad line\n"


BREAKAGES = [
    (c.enroot_files_mounted, drop_enroot_mount),
    (c.enroot_files_mounted, writable_enroot_mount),
    (c.shared_claims_mounted, drop_home_mount),
    (c.mounts_resolve, dangling_mount),
    (c.no_duplicates, duplicate_volume),
    (c.shared_claims_safe, rwo_claim),
    (c.shared_claims_safe, helm_owned_claim),
    (c.configmap_consistent, configmap_in_main),
    (c.enroot_file_lines, injected_line),
]


def test_every_invariant_is_exercised() -> None:
    assert {inv for inv, _ in BREAKAGES} == set(c.INVARIANTS)


def test_invariants_hold_on_a_real_render(rendered: c.Rendered) -> None:
    assert [o["kind"] for o in rendered.main].count("NodeSet") == 2
    assert c.check(rendered) == []


@pytest.mark.parametrize(("invariant", "breakage"), BREAKAGES, ids=lambda x: getattr(x, "__name__", str(x)))
def test_invariant_catches_breakage(rendered: c.Rendered, invariant: c.Invariant,
                                    breakage: Callable[[c.Rendered], None]) -> None:
    broken = mutated(rendered, breakage)
    found = invariant(broken)
    assert found, f"{invariant.__name__} missed {breakage.__name__}"
    assert all(v.invariant and v.where and v.message for v in found)


def test_storage_off_mounts_no_claim(helm: Helm) -> None:
    record_renders(helm, 2, test=True)
    r = c.render_pair(helm, [{"storage": {"enabled": False}}])
    assert c.check(r) == []
    assert not any(v.get("persistentVolumeClaim", {}).get("claimName") in ("shared-home", "shared-data")
                   for s in c.sets(r.main) for v in s.volumes)


def test_conformance_of_examples_and_reproducibility(helm: Helm, schema_store: SchemaStore) -> None:
    record_renders(helm, 4, test=True)
    result = c.conformance(helm, [STORAGE_ON], schema_store)
    assert result.ok, result.lines()
    assert result.objects >= 8


class TestAllProblems:
    def test_lists_every_problem_of_a_values_file(self, helm: Helm, schema_store: SchemaStore, tmp_path: Any) -> None:
        path = tmp_path / "site.yaml"
        path.write_text(
            "storage:\n  enabld: true\n  home:\n    size: 0Gi\n"
            "enroot:\n  config:\n    ENROOT_MOUNT_HOMES: 'yes'\n    ENROOT_REMAP_ROOT: 'off'\n"
            "  env:\n    PATH: /opt/bin\n    NCCL_IB_DISABLE: no\n")
        record_renders(helm, 14, test=True)
        result = c.all_problems(helm, [], schema_store, value_files=[path])
        assert not result.ok
        lines = result.lines()
        for needle in ("enabld", "storage.home.size:", "enroot.config.ENROOT_MOUNT_HOMES:",
                       "enroot.config.ENROOT_REMAP_ROOT:", "enroot.env.PATH:", "enroot.env.NCCL_IB_DISABLE:"):
            assert any(needle in ln for ln in lines), (needle, lines)

    def test_a_clean_file_has_no_problem(self, helm: Helm, schema_store: SchemaStore) -> None:
        record_renders(helm, 5, test=True)
        assert c.all_problems(helm, [STORAGE_ON], schema_store).ok

    @pytest.mark.parametrize(("message", "paths"), [
        ('enroot.env["A\\nB"]: the key', [["enroot", "env", "A\nB"]]),
        ('enroot.env["\\x1f"]: the key', [["enroot", "env", "\x1f"]]),  # Go %q, not JSON (found by fuzzing)
        ("nodesets.gpu.slurmd.volumeMounts[1]: mount", [["nodesets", "gpu", "slurmd", "volumeMounts"]]),
        ("values.schema.json: storage: additional properties 'enabld' not allowed; storage.home.name: no",
         [["storage", "enabld"], ["storage", "home", "name"]]),
        ("values.schema.json: (root): Additional property stroage is not allowed", [["stroage"]]),
        ("something without a path", []),
    ])
    def test_error_paths(self, message: str, paths: list[list[str]]) -> None:
        assert c.error_paths(message) == paths
