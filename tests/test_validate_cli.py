"""`slinkykit validate`: one command lists every problem of a site's values file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from slinkykit import REPO_ROOT
from slinkykit.cli import main
from slinkykit.helm import Helm
from slinkykit.pytest_plugin import record_renders

BAD = """\
storage:
  enabld: true
  enabled: true
  home:
    size: 0Gi
enroot:
  config:
    ENROOT_MOUNT_HOMES: "yes"
    ENROOT_REMAP_ROOT: "off"
  env:
    PATH: /opt/bin
    NCCL_IB_DISABLE: no
"""


@pytest.fixture
def bad_values(tmp_path: Path) -> Path:
    path = tmp_path / "site.yaml"
    path.write_text(BAD, encoding="utf-8")
    return path


def test_every_problem_is_listed_with_its_path(helm: Helm, bad_values: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["validate", "-f", str(bad_values)])
    record_renders(helm, 14, test=True)
    out = capsys.readouterr().out.splitlines()
    assert code == 1
    for path in ("enabld", "storage.home.size", "enroot.config.ENROOT_MOUNT_HOMES", "enroot.config.ENROOT_REMAP_ROOT",
                 "enroot.env.PATH", "enroot.env.NCCL_IB_DISABLE"):
        assert any(path in line for line in out), (path, out)
    assert out[-1].startswith(f"{bad_values}: ") and "problems" in out[-1]


def test_json_output_for_machines(helm: Helm, bad_values: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["validate", "-f", str(bad_values), "--output", "json"])
    record_renders(helm, 14, test=True)
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and report["ok"] is False
    paths = {f["path"] for f in report["findings"]}
    assert {"enroot.env.PATH", "enroot.config.ENROOT_REMAP_ROOT", "storage.home.size"} <= paths


@pytest.mark.parametrize("example", ["eks", "gke", "aks", "kind"])
def test_examples_are_conformant(helm: Helm, example: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["validate", "-f", str(REPO_ROOT / "values-examples" / f"{example}-values.yaml")])
    record_renders(helm, 4, test=True)
    out = capsys.readouterr().out
    assert code == 0, out
    assert "conformant" in out and "not checked" not in out


def test_set_is_typed_like_bundle(helm: Helm, capsys: pytest.CaptureFixture[str]) -> None:
    eks = REPO_ROOT / "values-examples" / "eks-values.yaml"
    code = main(["validate", "-f", str(eks), "--set", "slinkyslurm:enroot.env.NCCL_DEBUG_SUBSYS=INIT,NET",
                 "--set", "slinkyslurm:nodesets.gpu.replicas=8"])
    record_renders(helm, 4, test=True)
    assert code == 0, capsys.readouterr().out


def test_an_invariant_violation_fails(helm: Helm, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "conflict.yaml"
    path.write_text("storage: {enabled: true, sharedStorageClass: rwx}\n"
                    "nodesets:\n  gpu:\n    podSpec: {volumes: [{name: scratch, emptyDir: {}}]}\n"
                    "    slurmd: {volumeMounts: [{name: scratch, mountPath: /home}]}\n", encoding="utf-8")
    code = main(["validate", "-f", str(path)])
    record_renders(helm, 4, test=True)
    out = capsys.readouterr().out
    assert code == 1 and "nodesets.gpu.slurmd.volumeMounts[0]" in out


def test_without_schemas_custom_resources_are_said_not_checked(
        helm: Helm, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("SLINKYKIT_SCHEMAS", raising=False)
    code = main(["validate", "-f", str(REPO_ROOT / "values-examples" / "kind-values.yaml")])
    record_renders(helm, 4, test=True)
    out = capsys.readouterr().out
    assert code == 0
    assert "not-checked: " in out and "NodeSet" in out and "not checked" in out.splitlines()[-1]


@pytest.mark.parametrize("argv", [["validate"], ["validate", "-f", "missing.yaml"],
                                  ["validate", "-f", "values-examples/eks-values.yaml", "--set", "nocomponent=1"],
                                  ["validate", "-f", "values-examples/eks-values.yaml", "--schemas", "/nonexistent"]])
def test_usage_errors_exit_2(argv: list[str], monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(REPO_ROOT)
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "error" in err[0]
