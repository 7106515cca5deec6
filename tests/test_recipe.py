"""`slinkykit recipe`: criteria -> overlay files merged in a documented order -> a versioned recipe file.

Golden recipes under values-examples/ are regenerated only with SLINKYKIT_REGEN=1.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from slinkykit import CHARTS_DIR, REPO_ROOT, cli
from slinkykit import recipe as r
from slinkykit.emitters.charts import chart_metadata

SEED = ["recipe", "--service", "eks", "--accelerator", "h100", "--os", "ubuntu", "--intent", "training",
        "--platform", "slurm", "--output", "recipe.yaml"]
SERVICES = ["eks", "gke", "aks", "oke", "kind"]
ACCELERATORS = ["h100", "h200", "b200", "gb200", "a100", "l40s"]
EXAMPLES = sorted((REPO_ROOT / "values-examples").glob("*.recipe.yaml"))


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def gpu_set(recipe: r.Recipe) -> dict[str, Any]:
    return dict(recipe.values["nodesets"]["gpu"])


class TestSeedCommandLine:
    def test_writes_a_versioned_recipe(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
        monkeypatch.chdir(tmp_path)
        code, _, err = run(SEED, capsys)
        assert code == 0, err
        doc = yaml.safe_load((tmp_path / "recipe.yaml").read_text())
        assert (doc["apiVersion"], doc["kind"]) == ("slinkykit.dev/v1alpha1", "Recipe")
        assert doc["criteria"] == {"service": "eks", "accelerator": "h100", "os": "ubuntu", "intent": "training",
                                   "platform": "slurm"}
        assert doc["overlays"] == ["base.yaml", "service/eks.yaml", "accelerator/h100.yaml",
                                   "accelerator/h100.yaml#when.service.eks", "os/ubuntu.yaml", "intent/training.yaml"]
        assert doc["namespace"] == "slurm"
        assert [c["name"] for c in doc["components"]] == ["slinky-slurm-pre", "slinky-slurm"]
        gpu = doc["values"]["nodesets"]["gpu"]
        assert gpu["slurmd"]["resources"]["limits"]["nvidia.com/gpu"] == 8
        assert "Gres=gpu:h100:8" in gpu["extraConf"]
        assert gpu["podSpec"]["nodeSelector"]["node.kubernetes.io/instance-type"] == "p5.48xlarge"
        assert doc["capabilities"]["sharedStorage"] is True
        assert "recipe.yaml" in err

    def test_console_script_and_module_run_it_as_written(self, tmp_path: Path) -> None:
        script = Path(sys.executable).parent / "slinkykit"
        for argv in ([str(script), *SEED], [sys.executable, "-m", "slinkykit", *SEED]):
            (tmp_path / "recipe.yaml").unlink(missing_ok=True)
            proc = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False)
            assert proc.returncode == 0, proc.stderr
            assert yaml.safe_load((tmp_path / "recipe.yaml").read_text())["kind"] == "Recipe"

    def test_stdout_without_output(self, capsys: pytest.CaptureFixture[str]) -> None:
        code, out, _ = run(SEED[:-2], capsys)
        assert code == 0
        assert yaml.safe_load(out)["metadata"]["name"] == "eks-h100-ubuntu-training"

    def test_same_criteria_same_bytes(self, tmp_path: Path) -> None:
        crit = r.Criteria("gke", "b200", "rhel", "inference")
        assert r.build(crit).dumps() == r.build(crit).dumps()


class TestCriteria:
    @pytest.mark.parametrize("criterion,wanted", [
        ("service", SERVICES), ("accelerator", ACCELERATORS), ("os", ["ubuntu", "rhel"]),
        ("intent", ["training", "inference"])])
    def test_supported_values(self, criterion: str, wanted: list[str]) -> None:
        assert set(wanted) <= set(r.choices(criterion))

    def test_other_platform_fails_naming_slurm(self, capsys: pytest.CaptureFixture[str]) -> None:
        code, _, err = run([*SEED[:-4], "--platform", "kubernetes"], capsys)
        assert code == 2
        assert len(err.strip().splitlines()) == 1
        assert "--platform" in err and "'slurm'" in err

    @pytest.mark.parametrize("flag,value", [("--service", "openshift"), ("--accelerator", "mi300x"),
                                            ("--os", "windows"), ("--intent", "gaming")])
    def test_unknown_value_is_a_usage_error(self, flag: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
        argv = list(SEED)
        argv[argv.index(flag) + 1] = value
        code, _, err = run(argv, capsys)
        assert code == 2
        assert len(err.strip().splitlines()) == 1 and value in err

    def test_build_refuses_other_platform(self) -> None:
        with pytest.raises(r.RecipeError, match="slurm"):
            r.build(r.Criteria("eks", "h100", "ubuntu", "training", platform="kubernetes"))

    @pytest.mark.parametrize("service", SERVICES)
    @pytest.mark.parametrize("accelerator", ACCELERATORS)
    def test_every_combination_builds_or_says_why(self, service: str, accelerator: str) -> None:
        crit = r.Criteria(service, accelerator, "ubuntu", "training")
        if (service, accelerator) == ("gke", "l40s"):
            with pytest.raises(r.RecipeError, match="--accelerator l40s with --service gke: GKE has no L40S"):
                r.build(crit)
            return
        recipe = r.build(crit)
        gpu = gpu_set(recipe)
        count = gpu["slurmd"]["resources"]["limits"]["nvidia.com/gpu"]
        assert f"Gres=gpu:{accelerator}:{count}" in gpu["extraConf"]
        assert count == recipe.capabilities["gpusPerNode"]

    def test_unsupported_combination_exits_1(self, capsys: pytest.CaptureFixture[str]) -> None:
        argv = list(SEED)
        argv[argv.index("--service") + 1] = "gke"
        argv[argv.index("--accelerator") + 1] = "l40s"
        code, _, err = run(argv, capsys)
        assert code == 1
        assert len(err.strip().splitlines()) == 1 and "L40S" in err


class TestOverlays:
    def test_kind_declares_no_shared_storage(self) -> None:
        recipe = r.build(r.Criteria("kind", "h100", "ubuntu", "training"))
        assert recipe.shared_storage is False
        assert recipe.values["storage"]["enabled"] is False

    @pytest.mark.parametrize("service", ["eks", "gke", "aks", "oke"])
    def test_cloud_services_have_shared_storage(self, service: str) -> None:
        assert r.build(r.Criteria(service, "h100", "ubuntu", "training")).shared_storage is True

    def test_node_selectors_per_service(self) -> None:
        def selector(service: str) -> dict[str, str]:
            gpu = gpu_set(r.build(r.Criteria(service, "h100", "ubuntu", "training")))
            return dict(gpu.get("podSpec", {}).get("nodeSelector", {}))

        assert selector("eks") == {"node.kubernetes.io/instance-type": "p5.48xlarge"}
        assert selector("gke") == {"cloud.google.com/gke-accelerator": "nvidia-h100-80gb"}
        assert selector("aks") == {"kubernetes.azure.com/accelerator": "nvidia"}
        assert selector("kind") == {}

    def test_later_overlay_wins(self) -> None:
        # kind sets one replica, the training intent (applied later) two.
        assert gpu_set(r.build(r.Criteria("kind", "h100", "ubuntu", "training")))["replicas"] == 2
        assert gpu_set(r.build(r.Criteria("kind", "h100", "ubuntu", "inference")))["replicas"] == 1

    def test_os_overlay_sets_every_slurm_image(self) -> None:
        recipe = r.build(r.Criteria("eks", "h100", "rhel", "training"))
        tags = [recipe.values["controller"]["slurmctld"]["image"]["tag"],
                recipe.values["restapi"]["slurmrestd"]["image"]["tag"],
                recipe.values["loginsetDefaults"]["login"]["image"]["tag"],
                recipe.values["nodesetDefaults"]["slurmd"]["image"]["tag"]]
        assert set(tags) == {"25.11-rockylinux9"}

    def test_arm64_accelerator_selects_arm64_nodes(self) -> None:
        recipe = r.build(r.Criteria("eks", "gb200", "ubuntu", "training"))
        assert gpu_set(recipe)["podSpec"]["nodeSelector"]["kubernetes.io/arch"] == "arm64"
        assert recipe.capabilities["architecture"] == "arm64"

    def test_component_versions_match_the_charts(self) -> None:
        recipe = r.build(r.Criteria("eks", "h100", "ubuntu", "training"))
        for comp in recipe.components:
            assert chart_metadata(CHARTS_DIR / comp.chart) == (comp.chart, comp.version)

    def test_unknown_overlay_key_fails(self, tmp_path: Path) -> None:
        for rel in ("base.yaml", "service/x.yaml", "accelerator/a.yaml", "os/o.yaml", "intent/i.yaml"):
            (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / rel).write_text("namespace: slurm\ncomponents: [{name: a, chart: a, version: '1'}]\n")
        (tmp_path / "os/o.yaml").write_text("valeus: {}\n")
        with pytest.raises(r.RecipeError, match="unknown key 'valeus'"):
            r.build(r.Criteria("x", "a", "o", "i"), tmp_path)


class TestMerge:
    def test_maps_merge_key_by_key(self) -> None:
        assert r.deep_merge({"a": {"b": 1, "c": 2}}, {"a": {"c": 3, "d": 4}}) == {"a": {"b": 1, "c": 3, "d": 4}}

    def test_lists_replace(self) -> None:
        assert r.deep_merge({"a": [1, 2]}, {"a": [3]}) == {"a": [3]}

    def test_null_replaces_and_stays(self) -> None:
        assert r.deep_merge({"a": {"b": 1}}, {"a": None}) == {"a": None}

    def test_inputs_are_not_modified(self) -> None:
        base, over = {"a": {"b": [1]}}, {"a": {"c": 1}}
        out = r.deep_merge(base, over)
        out["a"]["b"].append(2)
        assert base == {"a": {"b": [1]}} and over == {"a": {"c": 1}}


class TestRecipeFile:
    def test_round_trip(self) -> None:
        recipe = r.build(r.Criteria("aks", "a100", "rhel", "training"))
        assert r.Recipe.from_document(yaml.safe_load(recipe.dumps())).dumps() == recipe.dumps()

    @pytest.mark.parametrize("doc,message", [
        ({"apiVersion": "v1", "kind": "ConfigMap"}, "apiVersion/kind"),
        ({"apiVersion": r.API_VERSION, "kind": r.KIND, "criteria": {"service": "eks"}}, "criteria.accelerator"),
        ("just text", "not a recipe"),
    ])
    def test_malformed_recipe_is_a_usage_error(self, doc: Any, message: str) -> None:
        with pytest.raises(r.RecipeFileError, match=message):
            r.Recipe.from_document(doc)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_values_example_recipes_are_current(path: Path) -> None:
    """values-examples/*.recipe.yaml equal what `slinkykit recipe` writes today (SLINKYKIT_REGEN=1 rewrites them)."""
    crit = r.load(path).criteria
    fresh = r.build(crit).dumps()
    if os.environ.get("SLINKYKIT_REGEN") == "1":
        path.write_text(fresh)
    assert path.read_text() == fresh, f"{path.name} is stale: run SLINKYKIT_REGEN=1 pytest tests/test_recipe.py"


def test_four_example_recipes() -> None:
    assert {p.name.split("-")[0] for p in EXAMPLES} == {"eks", "gke", "aks", "kind"}
