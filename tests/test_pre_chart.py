"""slinky-slurm-pre: the shared claims and the Enroot ConfigMap, every rule from both sides."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from slinkykit import PRE_CHART
from slinkykit.helm import HelmError
from slinkykit.pytest_plugin import RenderChart
from slinkykit.validation import SchemaStore

STORAGE_ON = {"storage": {"enabled": True, "sharedStorageClass": "efs-sc"}}


def by_kind(objs: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [o for o in objs if o["kind"] == kind]


def enroot_files(objs: list[dict[str, Any]]) -> dict[str, str]:
    (cm,) = by_kind(objs, "ConfigMap")
    assert cm["metadata"]["name"] == "slinky-slurm-enroot-config"
    return dict(cm["data"])


def fails(render_chart: RenderChart, values: Any = None, **kw: Any) -> str:
    with pytest.raises(HelmError) as info:
        render_chart(PRE_CHART, values, **kw)
    msg = info.value.message
    assert "\n" not in msg, msg
    return msg


def raw_values(tmp_path: Path, text: str) -> list[Path]:
    path = tmp_path / "values.yaml"
    path.write_text(text, encoding="utf-8")
    return [path]


class TestDefaults:
    def test_storage_off_by_default_renders_no_claim(self, render_chart: RenderChart) -> None:
        objs = render_chart(PRE_CHART)
        assert by_kind(objs, "PersistentVolumeClaim") == []
        assert [o["kind"] for o in objs] == ["ConfigMap"]

    def test_shipped_enroot_defaults(self, render_chart: RenderChart) -> None:
        files = enroot_files(render_chart(PRE_CHART))
        assert files["enroot.conf"] == "ENROOT_MOUNT_HOME=yes\nENROOT_REMAP_ROOT=yes\n"
        assert files["99-aicr-defaults.env"] == "NCCL_DEBUG=WARN\n"

    def test_null_removes_a_default(self, render_chart: RenderChart) -> None:
        files = enroot_files(render_chart(PRE_CHART, set_values=["enroot.config.ENROOT_REMAP_ROOT=null",
                                                                 "enroot.env.NCCL_DEBUG=null"]))
        assert files == {"enroot.conf": "ENROOT_MOUNT_HOME=yes\n", "99-aicr-defaults.env": ""}


class TestSharedClaims:
    def test_two_rwx_claims_with_retention_and_no_helm_ownership(self, render_chart: RenderChart) -> None:
        claims = by_kind(render_chart(PRE_CHART, STORAGE_ON), "PersistentVolumeClaim")
        assert [c["metadata"]["name"] for c in claims] == ["shared-home", "shared-data"]
        for c in claims:
            meta = c["metadata"]
            assert meta["namespace"] == "slurm"
            assert c["spec"]["accessModes"] == ["ReadWriteMany"]
            assert c["spec"]["storageClassName"] == "efs-sc"
            assert c["spec"]["resources"]["requests"]["storage"] == "100Gi"
            assert meta["annotations"] == {"helm.sh/resource-policy": "keep",
                                           "argocd.argoproj.io/sync-options": "Delete=false,Prune=false",
                                           "slinkykit.io/mount-path": meta["annotations"]["slinkykit.io/mount-path"]}
            assert not any(k.startswith("meta.helm.sh/") for k in meta.get("annotations", {}))
            assert "app.kubernetes.io/managed-by" not in meta.get("labels", {})
            assert "app.kubernetes.io/instance" not in meta.get("labels", {})
        assert [c["metadata"]["annotations"]["slinkykit.io/mount-path"] for c in claims] == ["/home", "/scratch/fsw"]

    def test_access_mode_cannot_be_changed(self, render_chart: RenderChart) -> None:
        msg = fails(render_chart, {"storage": {**STORAGE_ON["storage"], "home": {"accessModes": ["ReadWriteOnce"]}}})
        assert "storage.home" in msg and "accessModes" in msg

    def test_claim_names_do_not_depend_on_release(self, render_chart: RenderChart) -> None:
        def names(release: str) -> list[str]:
            objs = render_chart(PRE_CHART, STORAGE_ON, release=release)
            return [c["metadata"]["name"] for c in by_kind(objs, "PersistentVolumeClaim")]

        assert names("slinky-slurm-pre") == names("site-a") == ["shared-home", "shared-data"]

    def test_per_volume_class_beats_shared_class(self, render_chart: RenderChart) -> None:
        values = {"storage": {"enabled": True, "sharedStorageClass": "efs-sc",
                              "home": {"storageClassName": "home-rwx"}}}
        classes = [c["spec"]["storageClassName"] for c in by_kind(render_chart(PRE_CHART, values),
                                                                  "PersistentVolumeClaim")]
        assert classes == ["home-rwx", "efs-sc"]

    def test_seed_per_volume_classes_and_sizes(self, render_chart: RenderChart) -> None:
        objs = render_chart(PRE_CHART, set_values=[
            "storage.enabled=true",
            "storage.home.storageClassName=home-rwx", "storage.home.size=500Gi",
            "storage.data.storageClassName=data-rwx", "storage.data.size=2Ti"])
        got = [(c["metadata"]["name"], c["spec"]["storageClassName"], c["spec"]["resources"]["requests"]["storage"])
               for c in by_kind(objs, "PersistentVolumeClaim")]
        assert got == [("shared-home", "home-rwx", "500Gi"), ("shared-data", "data-rwx", "2Ti")]

    def test_custom_claim_names(self, render_chart: RenderChart) -> None:
        values = {"storage": {**STORAGE_ON["storage"], "home": {"name": "team-home"}, "data": {"name": "team.data"}}}
        names = [c["metadata"]["name"] for c in by_kind(render_chart(PRE_CHART, values), "PersistentVolumeClaim")]
        assert names == ["team-home", "team.data"]

    @pytest.mark.parametrize("missing", ["home", "data"])
    def test_enabled_without_any_class_fails(self, render_chart: RenderChart, missing: str) -> None:
        other = "data" if missing == "home" else "home"
        msg = fails(render_chart, {"storage": {"enabled": True, other: {"storageClassName": "x-rwx"}}})
        assert f"storage.{missing}.storageClassName" in msg and "storage.sharedStorageClass" in msg

    def test_generic_rwo_class_is_never_a_fallback(self, render_chart: RenderChart) -> None:
        msg = fails(render_chart, {"storage": {"enabled": True},
                                   "controller": {"persistence": {"storageClassName": "gp3"}}})
        assert "storage.home.storageClassName" in msg and "never used for shared claims" in msg

    def test_disabled_storage_needs_no_class(self, render_chart: RenderChart) -> None:
        assert by_kind(render_chart(PRE_CHART, {"storage": {"enabled": False}}), "PersistentVolumeClaim") == []


class TestStorageSchema:
    @pytest.mark.parametrize(("values", "path"), [
        ({"storage": {"enabld": True}}, "enabld"),
        ({"storage": {"home": {"sise": "1Gi"}}}, "sise"),
        ({"storage": {"data": {"mountpath": "/x"}}}, "mountpath"),
        ({"storage": {"enabled": "true"}}, "enabled"),
        ({"storage": {"enabled": "yes"}}, "enabled"),
        ({"storage": {"sharedStorageClass": "EFS_SC"}}, "sharedStorageClass"),
        ({"storage": {"home": {"storageClassName": "bad class"}}}, "storageClassName"),
        ({"storage": {"home": {"name": "Home"}}}, "storage.home.name"),
        ({"storage": {"data": {"name": "-data"}}}, "storage.data.name"),
        ({"storage": {"home": {"size": "lots"}}}, "storage.home.size"),
        ({"storage": {"home": {"size": "10 Gi"}}}, "storage.home.size"),
        ({"storage": {"data": {"mountPath": "scratch"}}}, "storage.data.mountPath"),
        ({"storage": {"data": {"mountPath": "/scratch/"}}}, "storage.data.mountPath"),
        ({"storage": {"data": {"mountPath": "/scratch/../etc"}}}, "storage.data.mountPath"),
        ({"stroage": {}}, "stroage"),
    ])
    def test_schema_rejects(self, render_chart: RenderChart, values: dict[str, Any], path: str) -> None:
        msg = fails(render_chart, values)
        assert msg.startswith("values.schema.json:") and path in msg

    @pytest.mark.parametrize("size", ["1", "1Gi", "2Ti", "500G", "1.5Ti", "1e12", "0.5Gi"])
    def test_positive_quantities_pass(self, render_chart: RenderChart, size: str) -> None:
        objs = render_chart(PRE_CHART, {"storage": {**STORAGE_ON["storage"], "data": {"size": size}}})
        assert by_kind(objs, "PersistentVolumeClaim")[1]["spec"]["resources"]["requests"]["storage"] == size

    @pytest.mark.parametrize("size", ["0", "0Gi", "0.0Ti", "00", "0e3"])
    def test_zero_quantities_fail(self, render_chart: RenderChart, size: str) -> None:
        msg = fails(render_chart, {"storage": {"home": {"size": size}}})
        assert msg.startswith("storage.home.size:") and "positive" in msg

    def test_claim_names_must_differ(self, render_chart: RenderChart) -> None:
        msg = fails(render_chart, {"storage": {**STORAGE_ON["storage"], "data": {"name": "shared-home"}}})
        assert msg.startswith("storage.data.name:") and "storage.home.name" in msg

    def test_mount_paths_must_differ(self, render_chart: RenderChart) -> None:
        msg = fails(render_chart, {"storage": {**STORAGE_ON["storage"], "data": {"mountPath": "/home"}}})
        assert msg.startswith("storage.data.mountPath:") and "storage.home.mountPath" in msg


def env_file(render_chart: RenderChart, env: dict[str, Any]) -> str:
    return enroot_files(render_chart(PRE_CHART, {"enroot": {"env": env}}))["99-aicr-defaults.env"]


def conf_file(render_chart: RenderChart, config: dict[str, Any]) -> str:
    return enroot_files(render_chart(PRE_CHART, {"enroot": {"config": config}}))["enroot.conf"]


class TestEnrootRendering:
    def test_sorted_key_value_lines_ending_in_newline(self, render_chart: RenderChart) -> None:
        text = env_file(render_chart, {"ZED": "1", "ALPHA": "a=b", "MID": "x # y"})
        assert text == "ALPHA=a=b\nMID=x # y\nNCCL_DEBUG=WARN\nZED=1\n"

    def test_seed_comma_value_via_set(self, render_chart: RenderChart) -> None:
        files = enroot_files(render_chart(PRE_CHART, set_values=["enroot.env.NCCL_DEBUG_SUBSYS=INIT\\,NET"]))
        assert "NCCL_DEBUG_SUBSYS=INIT,NET\n" in files["99-aicr-defaults.env"]

    def test_whole_numbers_render_as_written(self, render_chart: RenderChart, tmp_path: Path) -> None:
        files = enroot_files(render_chart(PRE_CHART, value_files=raw_values(
            tmp_path, "enroot:\n  env:\n    NCCL_NTHREADS: 64\n  config:\n    ENROOT_MAX_PROCESSORS: 8\n")))
        assert "NCCL_NTHREADS=64\n" in files["99-aicr-defaults.env"]
        assert "ENROOT_MAX_PROCESSORS=8\n" in files["enroot.conf"]

    def test_configmap_is_release_independent(self, render_chart: RenderChart) -> None:
        a = enroot_files(render_chart(PRE_CHART, release="one"))
        b = enroot_files(render_chart(PRE_CHART, release="two"))
        assert a == b


INJECTIONS = ["a\nLD_PRELOAD=/x.so", "a\rb", "a\tb", "a\x00b", "no\r", "a\x1bb", "a\x7fb", "a\x80b", "a\x85b",
              "a\u2028b", "a\ufffeb"]
# Helm 3's YAML reader refuses DEL before the chart sees it; that refusal is a failure too.
HELM3_REFUSAL = "values.schema.json: yaml: control characters are not allowed"


class TestSingleLine:
    @pytest.mark.parametrize("value", INJECTIONS)
    def test_env_value_with_control_character_fails(self, render_chart: RenderChart, value: str) -> None:
        msg = fails(render_chart, {"enroot": {"env": {"FOO": value}}})
        assert (msg.startswith("enroot.env.FOO:") and "control character" in msg) or msg == HELM3_REFUSAL

    @pytest.mark.parametrize("value", INJECTIONS)
    def test_config_value_with_control_character_fails(self, render_chart: RenderChart, value: str) -> None:
        msg = fails(render_chart, {"enroot": {"config": {"NVIDIA_DRIVER_CAPABILITIES": value}}})
        assert (msg.startswith("enroot.config.NVIDIA_DRIVER_CAPABILITIES:") and "control character" in msg) \
            or msg == HELM3_REFUSAL

    @pytest.mark.parametrize("section", ["env", "config"])
    def test_key_with_newline_fails(self, render_chart: RenderChart, section: str) -> None:
        msg = fails(render_chart, {"enroot": {section: {"A\nENROOT_X": "y"}}})
        assert msg.startswith(f'enroot.{section}["A\\nENROOT_X"]:') and "control character" in msg


class TestEnvRules:
    @pytest.mark.parametrize("key", ["NCCL_DEBUG_SUBSYS", "_PRIVATE", "lower_case", "X1"])
    def test_valid_keys(self, render_chart: RenderChart, key: str) -> None:
        assert f"{key}=v\n" in env_file(render_chart, {key: "v"})

    @pytest.mark.parametrize(("key", "why"), [
        ("1BAD", "not a variable name"), ("BAD-KEY", "not a variable name"), ("BAD KEY", "not a variable name"),
        ("KEY=X", "not a variable name"), ("ÜBER", "not a variable name"),
        ("ENROOT_MOUNT_HOME", "enroot.config"),
        ("PATH", "image"), ("LD_LIBRARY_PATH", "image"), ("LD_PRELOAD", "image"),
    ])
    def test_rejected_keys(self, render_chart: RenderChart, key: str, why: str) -> None:
        msg = fails(render_chart, {"enroot": {"env": {key: "v"}}})
        assert msg.startswith("enroot.env") and key in msg and why in msg

    @pytest.mark.parametrize("value", [" lead", "trail ", '"quoted"', "'single'", "\"mixed'"])
    def test_rejected_values(self, render_chart: RenderChart, value: str) -> None:
        msg = fails(render_chart, {"enroot": {"env": {"FOO": value}}})
        assert msg.startswith("enroot.env.FOO:")

    @pytest.mark.parametrize("value", ["${HOME}/x", "a${USER}b", "$HOME", "x#y", "a\"b", "", "ünïcode", "$(id)"])
    def test_accepted_values_render_verbatim(self, render_chart: RenderChart, value: str) -> None:
        assert f"FOO={value}\n" in env_file(render_chart, {"FOO": value})

    @pytest.mark.parametrize("value", ["${X:-d}", "${1}", "${", "${PATH}", "/x:${LD_LIBRARY_PATH}", "${SLURM_PROCID}"])
    def test_misleading_references_fail(self, render_chart: RenderChart, value: str) -> None:
        assert fails(render_chart, {"enroot": {"env": {"FOO": value}}}).startswith("enroot.env.FOO:")

    @pytest.mark.parametrize("literal", ["no", "yes", "off", "on", "true", "False"])
    def test_yaml_booleans_fail_naming_the_key(self, render_chart: RenderChart, tmp_path: Path, literal: str) -> None:
        text = f"enroot:\n  env:\n    NCCL_IB_DISABLE: {literal}\n"
        msg = fails(render_chart, value_files=raw_values(tmp_path, text))
        assert msg.startswith("enroot.env.NCCL_IB_DISABLE:") and "quote it" in msg

    def test_quoted_no_renders_as_written(self, render_chart: RenderChart, tmp_path: Path) -> None:
        objs = render_chart(PRE_CHART, value_files=raw_values(tmp_path, 'enroot:\n  env:\n    NCCL_IB_DISABLE: "no"\n'))
        assert "NCCL_IB_DISABLE=no\n" in enroot_files(objs)["99-aicr-defaults.env"]

    @pytest.mark.parametrize("literal", ["1.5", "12345678901234567890", "[a]", "{a: b}"])
    def test_non_text_values_fail(self, render_chart: RenderChart, tmp_path: Path, literal: str) -> None:
        msg = fails(render_chart, value_files=raw_values(tmp_path, f"enroot:\n  env:\n    FOO: {literal}\n"))
        assert "enroot.env" in msg and "FOO" in msg


class TestConfigRules:
    @pytest.mark.parametrize(("written", "rendered"), [
        ("yes", "yes"), ("YES", "yes"), ("y", "yes"), ("true", "yes"), ("True", "yes"),
        ("no", "no"), ("N", "no"), ("false", "no"), ("FALSE", "no"), ("fALSE", "no"),
    ])
    def test_boolean_words(self, render_chart: RenderChart, written: str, rendered: str) -> None:
        assert f"ENROOT_ROOTFS_WRITABLE={rendered}\n" in conf_file(render_chart, {"ENROOT_ROOTFS_WRITABLE": written})

    @pytest.mark.parametrize(("literal", "rendered"), [("no", "no"), ("yes", "yes"), ("false", "no"), ("on", "yes")])
    def test_yaml_booleans_render_their_meaning(self, render_chart: RenderChart, tmp_path: Path,
                                                literal: str, rendered: str) -> None:
        objs = render_chart(PRE_CHART, value_files=raw_values(
            tmp_path, f"enroot:\n  config:\n    ENROOT_REMAP_ROOT: {literal}\n"))
        assert f"ENROOT_REMAP_ROOT={rendered}\n" in enroot_files(objs)["enroot.conf"]

    @pytest.mark.parametrize("value", ["off", "0", "1", "on", "disabled", "nO ", "", "nein"])
    def test_boolean_words_enroot_would_misread_fail(self, render_chart: RenderChart, value: str) -> None:
        msg = fails(render_chart, {"enroot": {"config": {"ENROOT_REMAP_ROOT": value}}})
        assert msg.startswith("enroot.config.ENROOT_REMAP_ROOT:")

    @pytest.mark.parametrize(("key", "suggestion"), [
        ("ENROOT_MOUNT_HOMES", "ENROOT_MOUNT_HOME"), ("ENROOT_REMAPROOT", "ENROOT_REMAP_ROOT"),
        ("ENROOT_MAX_PROCESSOR", "ENROOT_MAX_PROCESSORS"), ("ENROOT_HOOKS_PATH", "ENROOT_"),
        ("ENROOT_FOO2", "ENROOT_"),
    ])
    def test_unknown_enroot_key_suggests_nearest(self, render_chart: RenderChart, key: str, suggestion: str) -> None:
        msg = fails(render_chart, {"enroot": {"config": {key: "yes"}}})
        assert msg.startswith(f"enroot.config.{key}:") and f"did you mean {suggestion}" in msg

    @pytest.mark.parametrize("key", ["HTTP_PROXY", "NCCL_DEBUG", "nvidia_visible_devices", "SSL_CERT_PATH"])
    def test_keys_enroot_ignores_fail(self, render_chart: RenderChart, key: str) -> None:
        msg = fails(render_chart, {"enroot": {"config": {key: "x"}}})
        assert msg.startswith(f"enroot.config.{key}:") and "ignores" in msg

    @pytest.mark.parametrize(("key", "value"), [
        ("NVIDIA_DRIVER_CAPABILITIES", "compute,utility"), ("MELLANOX_VISIBLE_DEVICES", "all"),
        ("SSL_CERT_FILE", "/etc/ssl/certs/ca-certificates.crt"), ("https_proxy", "http://proxy.corp:3128"),
        ("no_proxy", "localhost,.svc,10.0.0.0/8"),
        ("ENROOT_MAX_PROCESSORS", "1"), ("ENROOT_MAX_CONNECTIONS", "10"), ("ENROOT_CONNECT_TIMEOUT", "0"),
        ("ENROOT_RUNTIME_PATH", "/run/enroot/user-$(id -u)"), ("ENROOT_CACHE_PATH", "${HOME}/.cache/enroot"),
        ("ENROOT_DATA_PATH", "/tmp/enroot-data/user-$(id -u)"), ("ENROOT_SYSCONF_PATH", "/etc/enroot"),
        ("ENROOT_SQUASH_OPTIONS", "-comp lzo -noD"), ("ENROOT_ZSTD_OPTIONS", "-1"), ("ENROOT_GZIP_PROGRAM", "pigz"),
    ])
    def test_valid_entries_render_verbatim(self, render_chart: RenderChart, key: str, value: str) -> None:
        assert f"{key}={value}\n" in conf_file(render_chart, {key: value})

    @pytest.mark.parametrize(("key", "value", "why"), [
        ("ENROOT_MAX_PROCESSORS", "0", "minimum 1"), ("ENROOT_MAX_CONNECTIONS", "0", "minimum 1"),
        ("ENROOT_TRANSFER_RETRIES", "-1", "whole number"), ("ENROOT_CONNECT_TIMEOUT", "30s", "whole number"),
        ("ENROOT_CACHE_PATH", "relative/path", "absolute"), ("ENROOT_CACHE_PATH", "~/cache", "absolute"),
        ("ENROOT_CACHE_PATH", "/a b", "characters"), ("ENROOT_CACHE_PATH", "/x;touch /tmp/p", "characters"),
        ("ENROOT_CACHE_PATH", "/x/$(whoami)", "characters"), ("ENROOT_CACHE_PATH", "/x/*", "characters"),
        ("ENROOT_SYSCONF_PATH", "/opt/enroot", "must be /etc/enroot"),
        ("ENROOT_LIBRARY_PATH", "/opt/lib", "must be /usr/lib/enroot"),
        ("ENROOT_SQUASH_OPTIONS", "-n -comp lzo", "echo"), ("ENROOT_SQUASH_OPTIONS", "-comp  lzo", "option words"),
        ("ENROOT_GZIP_PROGRAM", "gzip -9", "command"),
        ("https_proxy", "http://p:1;id", "characters"), ("NVIDIA_VISIBLE_DEVICES", "`id`", "characters"),
        ("NVIDIA_VISIBLE_DEVICES", "", "empty"),
    ])
    def test_invalid_entries_fail(self, render_chart: RenderChart, key: str, value: str, why: str) -> None:
        msg = fails(render_chart, {"enroot": {"config": {key: value}}})
        assert msg.startswith(f"enroot.config.{key}:") and why in msg


class TestObjectsValidate:
    @pytest.mark.parametrize("values", [
        None, STORAGE_ON,
        {"storage": {**STORAGE_ON["storage"], "data": {"size": "2Ti"}},
         "enroot": {"env": {"NCCL_DEBUG_SUBSYS": "INIT,NET"}}},
    ])
    def test_core_objects_pass_strict_validation(self, render_chart: RenderChart, schema_store: SchemaStore,
                                                 values: Any) -> None:
        objs = render_chart(PRE_CHART, values)
        report = schema_store.validate_documents(objs)
        assert report.ok, report.lines()
        assert report.checked == len(objs)

    def test_strict_validation_would_catch_an_unknown_field(self, render_chart: RenderChart,
                                                            schema_store: SchemaStore) -> None:
        objs = render_chart(PRE_CHART, STORAGE_ON)
        objs[1]["spec"]["accesModes"] = ["ReadWriteMany"]
        assert not schema_store.validate_documents(objs).ok


def test_numeric_looking_names_stay_strings(render_chart: RenderChart) -> None:
    """Regression (fuzzing): a claim or class named "0" must not render as the integer 0."""
    objs = render_chart(PRE_CHART, {"storage": {"enabled": True, "sharedStorageClass": "0",
                                                "home": {"name": "0"}, "data": {"name": "1e3"}}}, namespace="08")
    claims = by_kind(objs, "PersistentVolumeClaim")
    assert [c["metadata"]["name"] for c in claims] == ["0", "1e3"]
    assert [c["spec"]["storageClassName"] for c in claims] == ["0", "0"]
    assert {o["metadata"]["namespace"] for o in objs} == {"08"}


class TestNotes:
    def test_says_what_was_created_and_the_order(self, render_chart: RenderChart,
                                                 notes_chart: Callable[[str], Path]) -> None:
        (doc,) = [d for d in render_chart(notes_chart(PRE_CHART), STORAGE_ON) if "notes" in d]
        text = " ".join(doc["notes"].split())
        assert "ConfigMap slinky-slurm-enroot-config" in text
        assert "PersistentVolumeClaim shared-home (ReadWriteMany, 100Gi, class efs-sc), mounted at /home" in text
        assert "install the slinky-slurm release from the same values file" in text
        assert "Remove this release last" in text
        assert "kubectl -n slurm delete pvc shared-home shared-data" in text

    def test_without_storage_says_no_claims(self, render_chart: RenderChart,
                                            notes_chart: Callable[[str], Path]) -> None:
        (doc,) = [d for d in render_chart(notes_chart(PRE_CHART)) if "notes" in d]
        assert "no shared claims" in doc["notes"] and "delete pvc" not in doc["notes"]
