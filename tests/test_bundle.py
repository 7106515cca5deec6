"""`slinkykit bundle`: seed command lines, every deployer's output validated, ordering and data-safety rules,
determinism, atomic writes, exit codes and one-line errors.

Custom resources and helmfile.yaml are validated against ../shared/schemas (or $SLINKYKIT_SCHEMAS); those
files are test data read at test time, never copied into the repository.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from slinkykit import CHARTS_DIR, REPO_ROOT, cli, yamlio
from slinkykit import bundle as b
from slinkykit import recipe as r
from slinkykit.emitters import ObjectRef, argocd
from slinkykit.emitters import charts as packaging
from slinkykit.helm import Helm
from slinkykit.pytest_plugin import RenderChart, record_renders
from slinkykit.validation import SCHEMAS_ENV, SchemaStore, default_store

SCHEMAS = Path(os.environ.get(SCHEMAS_ENV) or Path(__file__).resolve().parents[2] / "shared" / "schemas").resolve()
SHELLCHECK = Path(sys.executable).parent / "shellcheck"
DEPLOYERS = ("helm", "helmfile", "flux", "argocd")
SELECTOR = ("nodesets", "gpu", "podSpec", "nodeSelector")
#: The seed's optional flags, all at once.
SEED_FLAGS = ["--set", "slinkyslurm:enroot.env.NCCL_DEBUG_SUBSYS=INIT,NET", "--set", "slinkyslurm:storage.enabled=true",
              "--shared-storage-class", "efs-sc", "--storage-class", "gp3"]


@pytest.fixture(autouse=True)
def schemas_env(monkeypatch: pytest.MonkeyPatch) -> None:
    if not SCHEMAS.is_dir():
        pytest.fail(f"schema folder {SCHEMAS} missing: set {SCHEMAS_ENV}", pytrace=False)
    monkeypatch.setenv(SCHEMAS_ENV, str(SCHEMAS))


@pytest.fixture(scope="module")
def recipes_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("recipes")
    for name, crit in (("recipe.yaml", r.Criteria("eks", "h100", "ubuntu", "training")),
                       ("kind.yaml", r.Criteria("kind", "h100", "ubuntu", "training"))):
        (folder / name).write_text(r.build(crit).dumps())
    return folder


@dataclass
class Result:
    code: int
    out: str
    err: str

    @property
    def err_lines(self) -> list[str]:
        return [line for line in self.err.splitlines() if line.strip()]


Slinkykit = Callable[..., Result]


@pytest.fixture
def slinkykit(helm: Helm, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
              tmp_path: Path) -> Iterator[Slinkykit]:
    """Run the CLI in-process from ``tmp_path`` (recipe.yaml and kind.yaml are there); counts renders."""
    monkeypatch.setenv("HELM_BIN", str(helm.binary))
    monkeypatch.chdir(tmp_path)
    bundles = 0

    def run(*argv: str) -> Result:
        nonlocal bundles
        capsys.readouterr()
        code = cli.main(list(argv))
        out, err = capsys.readouterr()
        if argv[0] == "bundle" and code == 0:
            bundles += 1
        return Result(code, out, err)

    yield run
    if bundles:
        record_renders(helm, 2 * bundles, test=True)


@pytest.fixture
def in_tmp(slinkykit: Slinkykit, recipes_dir: Path, tmp_path: Path) -> Slinkykit:
    for p in recipes_dir.iterdir():
        shutil.copy(p, tmp_path / p.name)
    return slinkykit


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def docs(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


@pytest.fixture(scope="module")
def built(recipes_dir: Path, helm: Helm, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One bundle per deployer from the seed's full command line (module-scoped: built once)."""
    out = tmp_path_factory.mktemp("bundles")
    old = os.environ.get(SCHEMAS_ENV)
    os.environ[SCHEMAS_ENV] = str(SCHEMAS)
    try:
        for deployer in DEPLOYERS:
            args = cli.build_parser().parse_args(["bundle", "--recipe", str(recipes_dir / "recipe.yaml"), *SEED_FLAGS,
                                                  "--deployer", deployer, "--output", str(out / deployer),
                                                  "--git-path", "clusters/gpu/slurm"])
            opts = b.options(args)
            b.write(b.build(opts, helm), opts.output)
    finally:
        if old is None:
            os.environ.pop(SCHEMAS_ENV, None)
        else:
            os.environ[SCHEMAS_ENV] = old
    record_renders(helm, 2 * len(DEPLOYERS))
    return {d: out / d for d in DEPLOYERS}


@pytest.fixture(scope="module")
def store() -> SchemaStore:
    return default_store(SCHEMAS)


# --------------------------------------------------------------------------- seed command lines


@pytest.mark.render
class TestSeedCommandLines:
    @pytest.mark.parametrize("deployer", DEPLOYERS)
    def test_full_seed_line_per_deployer(self, in_tmp: Slinkykit, tmp_path: Path, deployer: str) -> None:
        res = in_tmp("bundle", "--recipe", "recipe.yaml", *SEED_FLAGS, "--deployer", deployer, "--output", "DIR")
        assert res.code == 0, res.err
        assert "DIR" in res.out
        files = tree(tmp_path / "DIR")
        assert {"README.md", "checksums.txt", "values.yaml", "recipe.yaml", "charts/slinky-slurm-pre-0.1.0.tgz",
                "charts/slinky-slurm-0.1.0.tgz"} <= set(files)

    def test_minimal_seed_line_defaults_to_helm(self, in_tmp: Slinkykit, tmp_path: Path) -> None:
        res = in_tmp("bundle", "--recipe", "recipe.yaml", "--output", "DIR")
        assert res.code == 0, res.err
        assert {"deploy.sh", "undeploy.sh"} <= set(tree(tmp_path / "DIR"))

    def test_recipe_then_bundle_through_the_console_script(self, helm: Helm, tmp_path: Path) -> None:
        exe = str(Path(sys.executable).parent / "slinkykit")
        env = {**os.environ, "HELM_BIN": str(helm.binary), SCHEMAS_ENV: str(SCHEMAS)}
        for argv in (["recipe", "--service", "eks", "--accelerator", "h100", "--os", "ubuntu", "--intent", "training",
                      "--platform", "slurm", "--output", "recipe.yaml"],
                     ["bundle", "--recipe", "recipe.yaml", *SEED_FLAGS, "--deployer", "helmfile", "--output", "DIR"]):
            proc = subprocess.run([exe, *argv], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
                                  check=False)
            assert proc.returncode == 0, proc.stderr
        record_renders(helm, 2, test=True)
        assert (tmp_path / "DIR" / "helmfile.yaml").is_file()

    def test_help_shows_real_examples(self, capsys: pytest.CaptureFixture[str]) -> None:
        assert cli.main(["bundle", "--help"]) == 0
        out = capsys.readouterr().out
        assert "slinkykit bundle --recipe recipe.yaml" in out and "--set slinkyslurm:" in out
        assert cli.main(["--help"]) == 0
        assert "slinkykit recipe --service eks --accelerator h100" in capsys.readouterr().out


# --------------------------------------------------------------------------- --set and storage classes


def values_of(folder: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((folder / "values.yaml").read_text())
    return loaded


@pytest.mark.render
class TestSetValues:
    def test_comma_value_reaches_the_enroot_file_as_written(self, built: dict[str, Path],
                                                           render_chart: RenderChart) -> None:
        folder = built["helm"]
        assert values_of(folder)["enroot"]["env"]["NCCL_DEBUG_SUBSYS"] == "INIT,NET"
        objs = render_chart(folder / "charts/slinky-slurm-pre-0.1.0.tgz", release="slinky-slurm-pre",
                            value_files=[folder / "values.yaml"])
        env = next(o for o in objs if o["kind"] == "ConfigMap")["data"]["99-aicr-defaults.env"]
        assert "NCCL_DEBUG_SUBSYS=INIT,NET\n" in env

    def test_storage_flags_fill_their_own_fields_only(self, built: dict[str, Path]) -> None:
        values = values_of(built["helm"])
        assert values["storage"] == {**values["storage"], "enabled": True, "sharedStorageClass": "efs-sc"}
        assert values["controller"]["persistence"] == {"storageClassName": "gp3"}
        assert all("storageClassName" not in values["storage"][claim] for claim in ("home", "data"))

    def test_rendered_classes_never_cross(self, built: dict[str, Path], render_chart: RenderChart) -> None:
        folder = built["helm"]
        pre = render_chart(folder / "charts/slinky-slurm-pre-0.1.0.tgz", release="slinky-slurm-pre",
                           value_files=[folder / "values.yaml"])
        main = render_chart(folder / "charts/slinky-slurm-0.1.0.tgz", release="slinky-slurm",
                            value_files=[folder / "values.yaml"])
        assert {o["spec"]["storageClassName"] for o in pre if o["kind"] == "PersistentVolumeClaim"} == {"efs-sc"}
        controller = next(o for o in main if o["kind"] == "Controller")
        assert controller["spec"]["persistence"]["storageClassName"] == "gp3"

    def test_shared_class_without_enabled_storage_is_said(self, in_tmp: Slinkykit, tmp_path: Path) -> None:
        res = in_tmp("bundle", "-q", "--recipe", "recipe.yaml", "--shared-storage-class", "efs-sc", "--output", "DIR")
        assert res.code == 0, res.err
        assert "storage.enabled is false, so no shared claims are created" in res.err
        assert values_of(tmp_path / "DIR")["storage"]["sharedStorageClass"] == "efs-sc"
        assert "PersistentVolumeClaim" not in (tmp_path / "DIR" / "README.md").read_text().split("## Before")[0]

    @pytest.mark.parametrize("raw,path,expected", [
        ("slinkyslurm:storage.enabled=true", ("storage", "enabled"), True),
        ("slinky-slurm:storage.enabled=false", ("storage", "enabled"), False),
        ("slinkyslurm:enroot.config.ENROOT_REMAP_ROOT=true", ("enroot", "config", "ENROOT_REMAP_ROOT"), "true"),
        ("slinkyslurm:enroot.env.NCCL_NET_GDR_LEVEL=5", ("enroot", "env", "NCCL_NET_GDR_LEVEL"), "5"),
        ("slinkyslurm:enroot.env.X=null", ("enroot", "env", "X"), "null"),
        ("slinkyslurm:enroot.env.NCCL_IB_HCA=mlx5_0:1,mlx5_1:1", ("enroot", "env", "NCCL_IB_HCA"), "mlx5_0:1,mlx5_1:1"),
        ("slinkyslurm:nodesets.gpu.replicas=4", ("nodesets", "gpu", "replicas"), 4),
        ("slinkyslurm:restapi.replicas=2", ("restapi", "replicas"), 2),
        ("slinkyslurm:controller.extraConf=true", ("controller", "extraConf"), "true"),
        ("slinkyslurm:controller.slurmctld.image.tag=1.20", ("controller", "slurmctld", "image", "tag"), "1.20"),
        ("slinkyslurm:nodesets.gpu.podSpec.nodeSelector.pool=0755", (*SELECTOR, "pool"), "0755"),
        ("slinkyslurm:nodesets.gpu.podSpec.nodeSelector.gpu=yes", (*SELECTOR, "gpu"), "yes"),
        ("slinkyslurm:nodesets.gpu.podSpec.nodeSelector.node\\.kubernetes\\.io/instance-type=p5e.48xlarge",
         (*SELECTOR, "node.kubernetes.io/instance-type"), "p5e.48xlarge"),
        ("slinkyslurm:controller.extraConf=a=b,c=d", ("controller", "extraConf"), "a=b,c=d"),
        ("slinkyslurm:nodesets.slinky=null", ("nodesets", "slinky"), None),
    ])
    def test_typing(self, raw: str, path: tuple[str, ...], expected: Any) -> None:
        parsed = b.parse_set(raw)
        assert parsed.path == path
        schema = b.ValuesSchema.for_charts([CHARTS_DIR / "slinky-slurm-pre", CHARTS_DIR / "slinky-slurm"])
        got = b.typed_value(parsed, schema)
        assert got == expected and type(got) is type(expected)

    def test_later_set_wins_and_order_is_recipe_values_set_flags(self, recipes_dir: Path, tmp_path: Path) -> None:
        extra = tmp_path / "extra.yaml"
        extra.write_text("nodesets: {gpu: {replicas: 3}}\nstorage: {sharedStorageClass: from-file}\n")
        opts = b.BundleOptions(recipe=recipes_dir / "recipe.yaml", output=tmp_path / "x", value_files=(extra,),
                               sets=("slinkyslurm:nodesets.gpu.replicas=5", "slinkyslurm:nodesets.gpu.replicas=6"),
                               shared_storage_class="from-flag")
        recipe = r.load(opts.recipe)
        values = b.resolve_values(recipe, opts, b.ValuesSchema.for_charts([CHARTS_DIR / "slinky-slurm"]))
        assert values["nodesets"]["gpu"]["replicas"] == 6
        assert values["storage"]["sharedStorageClass"] == "from-flag"
        assert values["nodesets"]["gpu"]["extraConf"] == recipe.values["nodesets"]["gpu"]["extraConf"]


class TestValuesFileText:
    """Helm reads the bundle's values.yaml with Go's YAML rules: text must come back as the same text."""

    @pytest.mark.parametrize("text", ["1e3", "08", "0x1F", "1_000", ".5", "yes", "off", "~", "null", "", "+1", "1.20"])
    def test_ambiguous_strings_are_quoted(self, text: str) -> None:
        dumped = yamlio.dump({"k": text})
        assert dumped.startswith("k: '") and yamlio.load(dumped) == {"k": text}

    def test_plain_strings_stay_plain(self) -> None:
        assert yamlio.dump({"k": "INIT,NET", "t": "25.11-ubuntu24.04", "s": "100Gi"}) == \
            "k: INIT,NET\nt: 25.11-ubuntu24.04\ns: 100Gi\n"

    @pytest.mark.render
    def test_number_like_text_reaches_the_chart_as_written(self, in_tmp: Slinkykit, tmp_path: Path,
                                                          render_chart: RenderChart) -> None:
        sets = [arg for name, value in (("A", "1e3"), ("B", "08"), ("C", "0x1F"))
                for arg in ("--set", f"slinkyslurm:enroot.env.{name}={value}")]
        assert in_tmp("bundle", "-q", "--recipe", "recipe.yaml", *sets, "--output", "DIR").code == 0
        folder = tmp_path / "DIR"
        objs = render_chart(folder / "charts/slinky-slurm-pre-0.1.0.tgz", release="slinky-slurm-pre",
                            value_files=[folder / "values.yaml"])
        env = next(o for o in objs if o["kind"] == "ConfigMap")["data"]["99-aicr-defaults.env"]
        assert {"A=1e3", "B=08", "C=0x1F"} <= set(env.splitlines())


# --------------------------------------------------------------------------- errors and exit codes


class TestErrors:
    @pytest.mark.render
    @pytest.mark.parametrize("recipe,extra,needle", [
        ("recipe.yaml", ["--set", "slinkyslurm:storage.enabled=true"],
         "storage.home.storageClassName: no ReadWriteMany"),
        ("kind.yaml", ["--set", "slinkyslurm:storage.enabled=true"], "storage.enabled=true: the kind recipe"),
        ("kind.yaml", ["--shared-storage-class", "standard"], "no shared-storage support"),
        ("recipe.yaml", ["--set", "slinkyslurm:enroot.config.ENROOT_MOUNT_HOMES=yes"],
         "did you mean ENROOT_MOUNT_HOME"),
        ("recipe.yaml", ["--set", "slinkyslurm:nodesets.gpu.replicas=-1"], "values.schema.json"),
        ("recipe.yaml", ["--set", "slinkyslurm:storage.enabled=true", "--shared-storage-class", "EFS_SC"],
         "values.schema.json"),
        ("recipe.yaml", ["--deployer", "argocd", "--set", "slinkyslurm:slurmKeyRef.create=true"],
         "slurmKeyRef.create=true"),
    ])
    def test_rule_violations_exit_1_in_one_line_and_write_nothing(self, in_tmp: Slinkykit, tmp_path: Path,
                                                                  recipe: str, extra: list[str], needle: str) -> None:
        res = in_tmp("bundle", "-q", "--recipe", recipe, *extra, "--output", "out/DIR")
        assert res.code == 1, res.err
        assert len(res.err_lines) == 1, res.err
        assert needle in res.err and res.err.startswith("slinkykit bundle: error: ")
        assert not (tmp_path / "out").exists()

    @pytest.mark.render
    def test_object_the_chart_accepts_but_kubernetes_rejects(self, in_tmp: Slinkykit, tmp_path: Path) -> None:
        (tmp_path / "typo.yaml").write_text("nodesets: {gpu: {podSpec: {affinity: {nodeAffinty: {}}}}}\n")
        res = in_tmp("bundle", "-q", "--recipe", "recipe.yaml", "--values", "typo.yaml", "--output", "DIR")
        assert res.code == 1
        assert len(res.err_lines) == 1 and "validation: NodeSet/slurm/slinky-slurm-worker-gpu" in res.err
        assert "nodeAffinty" in res.err
        assert not (tmp_path / "DIR").exists()

    @pytest.mark.parametrize("argv,needle", [
        (["--set", "storage.enabled=true"], "expected COMPONENT:PATH=VALUE"),
        (["--set", "slurm:storage.enabled=true"], "unknown component 'slurm'"),
        (["--set", "slinkyslurm:storage.enabled"], "missing '=VALUE'"),
        (["--set", "slinkyslurm:nodesets.gpu.podSpec.tolerations[0].key=x"], "list indexes"),
        (["--set", "slinkyslurm:storage..enabled=true"], "not a dotted path"),
        (["--shared-storage-class", ""], "--shared-storage-class is blank"),
        (["--shared-storage-class", "  "], "--shared-storage-class is blank"),
        (["--storage-class", ""], "--storage-class is blank"),
        (["--deployer", "kustomize"], "invalid choice: 'kustomize'"),
        (["--values", "missing.yaml"], "--values missing.yaml: cannot read it"),
        (["--schemas", "no-such-folder"], "--schemas no-such-folder: not a folder"),
    ])
    def test_usage_errors_exit_2_in_one_line(self, in_tmp: Slinkykit, tmp_path: Path, argv: list[str],
                                             needle: str) -> None:
        res = in_tmp("bundle", "-q", "--recipe", "recipe.yaml", *argv, "--output", "DIR")
        assert res.code == 2, res.err
        assert len(res.err_lines) == 1, res.err
        assert needle in res.err
        assert not (tmp_path / "DIR").exists()

    @pytest.mark.parametrize("content,needle", [
        (None, "cannot read it"),
        ("apiVersion: v1\nkind: ConfigMap\n", "apiVersion/kind"),
        ("a: [unclosed\n", "not valid YAML"),
    ])
    def test_bad_recipe_file_exit_2(self, in_tmp: Slinkykit, tmp_path: Path, content: str | None, needle: str) -> None:
        if content is not None:
            (tmp_path / "bad.yaml").write_text(content)
        res = in_tmp("bundle", "--recipe", "bad.yaml", "--output", "DIR")
        assert res.code == 2 and len(res.err_lines) == 1 and needle in res.err

    def test_missing_helm_exit_2(self, in_tmp: Slinkykit, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("HELM_BIN", str(tmp_path / "no-helm"))
        res = in_tmp("bundle", "-q", "--recipe", "recipe.yaml", "--output", "DIR")
        assert res.code == 2 and "HELM_BIN" in res.err and len(res.err_lines) == 1
        assert not (tmp_path / "DIR").exists()

    def test_stale_recipe_chart_version_exit_2(self, in_tmp: Slinkykit, tmp_path: Path) -> None:
        text = (tmp_path / "recipe.yaml").read_text().replace("version: 0.1.0", "version: 9.9.9", 1)
        (tmp_path / "old.yaml").write_text(text)
        res = in_tmp("bundle", "--recipe", "old.yaml", "--output", "DIR")
        assert res.code == 2 and "regenerate the recipe" in res.err and len(res.err_lines) == 1


# --------------------------------------------------------------------------- atomic writes


class TestAtomicWrites:
    def test_non_empty_folder_refused_without_force(self, in_tmp: Slinkykit, tmp_path: Path) -> None:
        (tmp_path / "DIR").mkdir()
        (tmp_path / "DIR" / "notes.txt").write_text("mine")
        res = in_tmp("bundle", "--recipe", "recipe.yaml", "--output", "DIR")
        assert res.code == 2 and "--force" in res.err and len(res.err_lines) == 1
        assert tree(tmp_path / "DIR") == {"notes.txt": b"mine"}

    def test_force_never_deletes_a_folder_that_is_not_a_bundle(self, in_tmp: Slinkykit, tmp_path: Path) -> None:
        (tmp_path / "DIR").mkdir()
        (tmp_path / "DIR" / "notes.txt").write_text("mine")
        res = in_tmp("bundle", "--recipe", "recipe.yaml", "--output", "DIR", "--force")
        assert res.code == 2 and "not a slinkykit bundle" in res.err
        assert tree(tmp_path / "DIR") == {"notes.txt": b"mine"}

    @pytest.mark.render
    def test_force_replaces_a_bundle_and_an_empty_folder_is_used(self, in_tmp: Slinkykit, tmp_path: Path) -> None:
        (tmp_path / "DIR").mkdir()
        assert in_tmp("bundle", "-q", "--recipe", "recipe.yaml", "--deployer", "helmfile", "--output", "DIR").code == 0
        res = in_tmp("bundle", "-q", "--recipe", "recipe.yaml", "--output", "DIR", "--force")
        assert res.code == 0, res.err
        files = tree(tmp_path / "DIR")
        assert "deploy.sh" in files and "helmfile.yaml" not in files
        assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []

    @pytest.mark.render
    def test_failure_while_writing_leaves_nothing(self, recipes_dir: Path, helm: Helm, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
        bundle = b.build(b.BundleOptions(recipe=recipes_dir / "recipe.yaml", output=tmp_path / "DIR"), helm)
        record_renders(helm, 2, test=True)
        real = Path.write_bytes
        calls = []

        def flaky(self: Path, data: bytes) -> int:
            calls.append(self)
            if len(calls) == 3:
                raise OSError(28, "No space left on device")
            return real(self, data)

        monkeypatch.setattr(Path, "write_bytes", flaky)
        with pytest.raises(OSError):
            b.write(bundle, tmp_path / "DIR")
        assert list(tmp_path.iterdir()) == []

    @pytest.mark.render
    def test_failure_while_replacing_keeps_the_old_bundle(self, recipes_dir: Path, helm: Helm, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
        bundle = b.build(b.BundleOptions(recipe=recipes_dir / "recipe.yaml", output=tmp_path / "DIR"), helm)
        record_renders(helm, 2, test=True)
        b.write(bundle, tmp_path / "DIR")
        before = tree(tmp_path / "DIR")
        monkeypatch.setattr(Path, "chmod", lambda self, mode: (_ for _ in ()).throw(OSError(1, "denied")))
        with pytest.raises(OSError):
            b.write(bundle, tmp_path / "DIR", force=True)
        assert tree(tmp_path / "DIR") == before
        assert [p.name for p in tmp_path.iterdir()] == ["DIR"]


# --------------------------------------------------------------------------- determinism and integrity


@pytest.mark.render
class TestDeterminism:
    @pytest.mark.parametrize("deployer", DEPLOYERS)
    def test_same_inputs_same_bytes(self, in_tmp: Slinkykit, tmp_path: Path, deployer: str) -> None:
        for out in ("A", "B"):
            res = in_tmp("bundle", "-q", "--recipe", "recipe.yaml", *SEED_FLAGS, "--deployer", deployer,
                         "--git-path", "clusters/gpu/slurm", "--output", out)
            assert res.code == 0, res.err
        assert tree(tmp_path / "A") == tree(tmp_path / "B")

    def test_checksums_cover_every_file_and_verify(self, built: dict[str, Path]) -> None:
        for folder in built.values():
            files = tree(folder)
            listed = dict(reversed(line.split("  ", 1)) for line in files["checksums.txt"].decode().splitlines())
            assert set(listed) == set(files) - {"checksums.txt"}
            for path, digest in listed.items():
                assert hashlib.sha256(files[path]).hexdigest() == digest
            if shutil.which("sha256sum"):
                subprocess.run(["sha256sum", "--check", "--quiet", "checksums.txt"], cwd=folder, check=True)


@pytest.mark.render
class TestPackagedCharts:
    @pytest.mark.parametrize("chart", ["slinky-slurm-pre", "slinky-slurm"])
    def test_archive_renders_like_the_chart_folder(self, built: dict[str, Path], render_chart: RenderChart,
                                                   chart: str) -> None:
        folder = built["helm"]
        archive = folder / "charts" / packaging.archive_name(CHARTS_DIR / chart)
        values = [folder / "values.yaml"]
        assert render_chart(archive, release=chart, value_files=values) == \
            render_chart(CHARTS_DIR / chart, release=chart, value_files=values)

    def test_archive_layout_is_reproducible(self) -> None:
        data = packaging.package(CHARTS_DIR / "slinky-slurm")
        assert data == packaging.package(CHARTS_DIR / "slinky-slurm")
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            members = tar.getmembers()
        names = [m.name for m in members]
        chart = CHARTS_DIR / "slinky-slurm"
        assert names == [f"slinky-slurm/{p.relative_to(chart).as_posix()}" for p in packaging.chart_files(chart)]
        assert {"slinky-slurm/Chart.yaml", "slinky-slurm/values.yaml", "slinky-slurm/values.schema.json"} <= set(names)
        assert all((m.mtime, m.uid, m.gid, m.mode) == (0, 0, 0, 0o644) for m in members)

    def test_helmignore_is_honoured(self, tmp_path: Path) -> None:
        chart = tmp_path / "demo"
        (chart / "templates").mkdir(parents=True)
        (chart / "Chart.yaml").write_text("apiVersion: v2\nname: demo\nversion: 1.0.0\n")
        (chart / ".helmignore").write_text("# comment\n*.bak\nsecrets/\n")
        (chart / "templates" / "cm.yaml").write_text("x")
        (chart / "templates" / "cm.yaml.bak").write_text("x")
        (chart / "secrets").mkdir()
        (chart / "secrets" / "key").write_text("x")
        rel = [p.relative_to(chart).as_posix() for p in packaging.chart_files(chart)]
        assert rel == [".helmignore", "Chart.yaml", "templates/cm.yaml"]


# --------------------------------------------------------------------------- every deployer's output validates


@pytest.mark.render
class TestEmittedObjectsValidate:
    @pytest.mark.parametrize("deployer", DEPLOYERS)
    def test_all_yaml_objects_valid(self, built: dict[str, Path], store: SchemaStore, deployer: str) -> None:
        folder = built[deployer]
        for path in sorted(folder.rglob("*.yaml")):
            rel = path.relative_to(folder).as_posix()
            if rel in ("values.yaml", "recipe.yaml"):
                continue
            loaded = docs(path)
            if rel == "helmfile.yaml":
                assert store.validate_helmfile(loaded[0]) == []
            elif rel.endswith("kustomization.yaml"):
                assert loaded[0]["kind"] == "Kustomization"
                assert all((path.parent / res).is_file() for res in loaded[0]["resources"])
            else:
                report = store.validate_documents(loaded)
                assert report.findings == () and report.not_checked == (), report.lines()
                assert report.checked == len(loaded)

    def test_rendered_objects_valid(self, built: dict[str, Path], store: SchemaStore,
                                    render_chart: RenderChart) -> None:
        folder = built["helm"]
        objs = [o for chart in ("slinky-slurm-pre", "slinky-slurm") for o in render_chart(
            folder / "charts" / packaging.archive_name(CHARTS_DIR / chart), release=chart,
            value_files=[folder / "values.yaml"])]
        report = store.validate_documents(objs)
        assert report.ok, report.lines()

    def test_scripts_pass_shellcheck(self, built: dict[str, Path]) -> None:
        scripts = [built["helm"] / "deploy.sh", built["helm"] / "undeploy.sh"]
        proc = subprocess.run([str(SHELLCHECK), "--severity=style", *map(str, scripts)], capture_output=True, text=True,
                              check=False)
        assert proc.returncode == 0, proc.stdout
        for s in scripts:
            text = s.read_text()
            assert text.startswith("#!/usr/bin/env bash\n") and "\nset -euo pipefail\n" in text
            assert os.access(s, os.X_OK)

    def test_readme_says_what_order_verify_remove(self, built: dict[str, Path]) -> None:
        for deployer, folder in built.items():
            text = (folder / "README.md").read_text()
            for heading in ("## What will be created", "## Deploy with", "## Verify", "## Remove",
                            "## Why it is built this way", "## Validation"):
                assert heading in text, (deployer, heading)
            assert text.index("Release `slinky-slurm-pre`") < text.index("Release `slinky-slurm`")
            assert "kubectl delete pvc --namespace slurm --ignore-not-found shared-home shared-data" in text
            assert "PersistentVolumeClaim `shared-home`" in text

    def test_not_checked_kinds_are_said_in_one_line_each(self, in_tmp: Slinkykit, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.delenv(SCHEMAS_ENV)
        res = in_tmp("bundle", "-q", "--recipe", "recipe.yaml", "--deployer", "flux", "--output", "DIR")
        assert res.code == 0, res.err
        lines = [line for line in res.err_lines if "not checked" in line]
        kinds = {"HelmRelease", "GitRepository", "Controller", "LoginSet", "NodeSet", "RestApi"}
        assert {k for k in kinds for line in lines if f" {k} object" in line} == kinds
        assert len(lines) == len(kinds) + 1  # + flux/kustomization.yaml
        readme = (tmp_path / "DIR" / "README.md").read_text()
        assert "not checked: 2 helm.toolkit.fluxcd.io/v2 HelmRelease objects" in readme

    def test_crds_from_the_cluster(self, in_tmp: Slinkykit, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """--schemas-from-cluster reads `kubectl get crd NAME -o yaml`; here kubectl is a stub serving the test CRDs."""
        crds = {d["metadata"]["name"]: p for p in SCHEMAS.rglob("*.yaml") for d in docs(p)
                if d.get("kind") == "CustomResourceDefinition"}
        table = tmp_path / "crds.txt"
        table.write_text("".join(f"{name} {path}\n" for name, path in crds.items()))
        stub = tmp_path / "kubectl"
        stub.write_text(f'#!/usr/bin/env bash\necho "$*" >> {tmp_path}/kubectl.log\n'
                        f'file=$(awk -v n="$3" \'$1 == n {{print $2}}\' {table})\n'
                        '[[ -n $file ]] || { echo "Error: not found" >&2; exit 1; }\ncat "$file"\n')
        stub.chmod(0o755)
        monkeypatch.delenv(SCHEMAS_ENV)
        monkeypatch.setenv("KUBECTL", str(stub))
        res = in_tmp("bundle", "-q", "--recipe", "recipe.yaml", "--deployer", "argocd", "--schemas-from-cluster",
                     "--output", "DIR")
        assert res.code == 0, res.err
        asked = (tmp_path / "kubectl.log").read_text().split("\n")
        assert "get crd applications.argoproj.io -o yaml" in asked
        assert "get crd nodesets.slinky.slurm.net -o yaml" in asked
        assert not [line for line in res.err_lines if "not checked" in line]
        assert "CRDs from the cluster" in (tmp_path / "DIR" / "README.md").read_text()


# --------------------------------------------------------------------------- ordering and data safety per deployer


def fake_helm(tmp_path: Path) -> tuple[Path, Path]:
    log = tmp_path / "helm.log"
    stub = tmp_path / "fake-helm"
    stub.write_text(f'#!/usr/bin/env bash\necho "$*" >> {log}\n')
    stub.chmod(0o755)
    return stub, log


class TestHelmScripts:
    def test_deploy_installs_pre_then_main_without_waiting(self, built: dict[str, Path], tmp_path: Path) -> None:
        folder = shutil.copytree(built["helm"], tmp_path / "bundle")
        stub, log = fake_helm(tmp_path)
        proc = subprocess.run(["./deploy.sh", "--kube-context", "lab"], cwd=folder,
                              env={**os.environ, "HELM": str(stub)}, capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stderr
        assert log.read_text().splitlines() == [
            "upgrade --install slinky-slurm-pre charts/slinky-slurm-pre-0.1.0.tgz --namespace slurm --create-namespace "
            "--values values.yaml --kube-context lab",
            "upgrade --install slinky-slurm charts/slinky-slurm-0.1.0.tgz --namespace slurm --values values.yaml "
            "--kube-context lab",
        ]

    def test_deploy_refuses_a_modified_bundle(self, built: dict[str, Path], tmp_path: Path) -> None:
        folder = shutil.copytree(built["helm"], tmp_path / "bundle")
        with (folder / "values.yaml").open("a") as fh:
            fh.write("nodesets: {}\n")
        stub, log = fake_helm(tmp_path)
        proc = subprocess.run(["./deploy.sh"], cwd=folder, env={**os.environ, "HELM": str(stub)},
                              capture_output=True, text=True, check=False)
        assert proc.returncode != 0
        assert not log.exists()

    def test_undeploy_removes_main_first_and_keeps_the_claims(self, built: dict[str, Path], tmp_path: Path) -> None:
        stub, log = fake_helm(tmp_path)
        proc = subprocess.run([str(built["helm"] / "undeploy.sh")], env={**os.environ, "HELM": str(stub)},
                              capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stderr
        assert [line.split()[:2] for line in log.read_text().splitlines()] == [
            ["status", "slinky-slurm"], ["uninstall", "slinky-slurm"],
            ["status", "slinky-slurm-pre"], ["uninstall", "slinky-slurm-pre"]]
        assert "Kept: the shared PersistentVolumeClaims shared-home shared-data" in proc.stdout
        assert "kubectl delete pvc --namespace slurm --ignore-not-found shared-home shared-data" in proc.stdout

    def test_no_script_waits(self, built: dict[str, Path]) -> None:
        for name in ("deploy.sh", "undeploy.sh"):
            assert "--wait" not in (built["helm"] / name).read_text()


class TestHelmfile:
    def test_main_needs_pre_and_nothing_waits(self, built: dict[str, Path]) -> None:
        doc = docs(built["helmfile"] / "helmfile.yaml")[0]
        pre, main = doc["releases"]
        assert (pre["name"], main["name"]) == ("slinky-slurm-pre", "slinky-slurm")
        assert main["needs"] == ["slurm/slinky-slurm-pre"] and "needs" not in pre
        assert pre["wait"] is False and main["wait"] is False and doc["helmDefaults"]["wait"] is False
        for rel in (pre, main):
            assert rel["namespace"] == "slurm"
            assert (built["helmfile"] / rel["chart"]).is_file()
            assert rel["values"] == ["./values.yaml"]


class TestFlux:
    def releases(self, folder: Path) -> tuple[dict[str, Any], dict[str, Any]]:
        return (docs(folder / "flux/helmrelease-slinky-slurm-pre.yaml")[0],
                docs(folder / "flux/helmrelease-slinky-slurm.yaml")[0])

    def test_explicit_release_names_and_depends_on(self, built: dict[str, Path]) -> None:
        pre, main = self.releases(built["flux"])
        assert pre["apiVersion"] == "helm.toolkit.fluxcd.io/v2"
        assert (pre["spec"]["releaseName"], main["spec"]["releaseName"]) == ("slinky-slurm-pre", "slinky-slurm")
        assert main["spec"]["dependsOn"] == [{"name": "slinky-slurm-pre"}] and "dependsOn" not in pre["spec"]
        for hr in (pre, main):
            assert hr["spec"]["targetNamespace"] == hr["spec"]["storageNamespace"] == "slurm"

    def test_pre_release_does_not_wait_for_claims(self, built: dict[str, Path]) -> None:
        pre, main = self.releases(built["flux"])
        for hr in (pre, main):
            assert hr["spec"]["install"]["disableWait"] is True and hr["spec"]["upgrade"]["disableWait"] is True

    def test_chart_source_points_at_the_packaged_charts(self, built: dict[str, Path]) -> None:
        folder = built["flux"]
        repo = docs(folder / "flux/gitrepository.yaml")[0]
        assert repo["kind"] == "GitRepository"
        for hr in self.releases(folder):
            spec = hr["spec"]["chart"]["spec"]
            assert spec["sourceRef"] == {"kind": "GitRepository", "name": repo["metadata"]["name"],
                                         "namespace": repo["metadata"]["namespace"]}
            assert spec["chart"].startswith("./clusters/gpu/slurm/charts/")
            assert (folder / spec["chart"].removeprefix("./clusters/gpu/slurm/")).is_file()
        assert repo["spec"]["ignore"] == ("/*\n!/clusters/\n/clusters/*\n!/clusters/gpu/\n/clusters/gpu/*\n"
                                          "!/clusters/gpu/slurm/\n/clusters/gpu/slurm/*\n!/clusters/gpu/slurm/charts/\n")

    def test_values_are_the_bundle_values(self, built: dict[str, Path]) -> None:
        for hr in self.releases(built["flux"]):
            assert hr["spec"]["values"] == values_of(built["flux"])

    def test_kustomization_lists_the_objects(self, built: dict[str, Path]) -> None:
        k = docs(built["flux"] / "flux/kustomization.yaml")[0]
        assert k["resources"] == ["gitrepository.yaml", "helmrelease-slinky-slurm-pre.yaml",
                                  "helmrelease-slinky-slurm.yaml"]


class TestArgoCD:
    def test_one_application_pre_source_first(self, built: dict[str, Path]) -> None:
        app = docs(built["argocd"] / "argocd/application.yaml")[0]
        sources = app["spec"]["sources"]
        assert [(s["chart"], s["helm"]["releaseName"]) for s in sources] == [
            ("slinky-slurm-pre", "slinky-slurm-pre"), ("slinky-slurm", "slinky-slurm")]
        assert all(s["helm"]["valuesObject"] == values_of(built["argocd"]) for s in sources)
        assert app["spec"]["destination"]["namespace"] == "slurm"

    def test_no_sync_wave_can_hold_the_claims(self, built: dict[str, Path]) -> None:
        text = (built["argocd"] / "argocd/application.yaml").read_text()
        assert "sync-wave" not in text

    def test_pre_objects_applied_before_every_slinky_resource(self, built: dict[str, Path],
                                                              render_chart: RenderChart) -> None:
        folder = built["argocd"]
        rendered = {chart: render_chart(folder / "charts" / packaging.archive_name(CHARTS_DIR / chart), release=chart,
                                        value_files=[folder / "values.yaml"])
                    for chart in ("slinky-slurm-pre", "slinky-slurm")}
        pre_ranks = [argocd.apply_rank(o["kind"]) for o in rendered["slinky-slurm-pre"]]
        slinky_ranks = [argocd.apply_rank(o["kind"]) for o in rendered["slinky-slurm"]
                        if o["apiVersion"].startswith("slinky.slurm.net/")]
        assert {o["kind"] for o in rendered["slinky-slurm-pre"]} == {"ConfigMap", "PersistentVolumeClaim"}
        assert slinky_ranks and max(pre_ranks) < min(slinky_ranks)

    def test_order_check_rejects_a_custom_kind_in_the_pre_chart(self) -> None:
        pre = [ObjectRef("v1", "ConfigMap", "a"), ObjectRef("example.com/v1", "Claim", "b")]
        with pytest.raises(argocd.EmitError, match="Claim/b"):
            argocd.check_order(pre, [ObjectRef("slinky.slurm.net/v1beta1", "NodeSet", "n")])

    def test_repository_declares_the_oci_registry(self, built: dict[str, Path]) -> None:
        secret = docs(built["argocd"] / "argocd/repository.yaml")[0]
        app = docs(built["argocd"] / "argocd/application.yaml")[0]
        assert secret["stringData"]["enableOCI"] == "true"
        assert {s["repoURL"] for s in app["spec"]["sources"]} == {secret["stringData"]["url"]}


# --------------------------------------------------------------------------- values-examples render cleanly


@pytest.mark.render
@pytest.mark.parametrize("service", ["eks", "gke", "aks", "kind"])
def test_values_examples_bundle_cleanly(in_tmp: Slinkykit, tmp_path: Path, service: str) -> None:
    examples = REPO_ROOT / "values-examples"
    (recipe,) = examples.glob(f"{service}-*.recipe.yaml")
    res = in_tmp("bundle", "-q", "--recipe", str(recipe), "--values", str(examples / f"{service}-values.yaml"),
                 "--deployer", "helmfile", "--output", "DIR")
    assert res.code == 0, res.err
    values = values_of(tmp_path / "DIR")
    expected = {"eks": "efs-sc", "gke": "standard-rwx", "aks": "azurefile-csi"}
    if service in expected:
        assert values["storage"]["enabled"] is True and values["storage"]["sharedStorageClass"] == expected[service]
    else:
        assert values["storage"]["enabled"] is False
