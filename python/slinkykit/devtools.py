"""Maintainer tasks that keep generated chart files in step with their one source.

``python -m slinkykit.devtools sync``   regenerate schemas, chart READMEs and the packaged library
``python -m slinkykit.devtools check``  fail when any of those drifted (run by the lint tox env)
``python -m slinkykit.devtools lint``   check + ``helm lint --strict`` on every application chart + shellcheck
                                        on the scripts of a freshly generated Helm bundle
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from . import CHARTS_DIR, LIB_CHART, MAIN_CHART, PRE_CHART
from .helm import Helm, HelmError

APP_CHARTS = (PRE_CHART, MAIN_CHART)
COMMON_SCHEMA = CHARTS_DIR / LIB_CHART / "values.common.schema.json"
DRAFT = "http://json-schema.org/draft-07/schema#"
FOREIGN_KEY_DOC = (
    "Used by the other slinky-slurm chart of the pair and validated there; accepted so one values file serves both."
)


def load_json(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def dump_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def chart_dirs() -> list[Path]:
    return [CHARTS_DIR / name for name in APP_CHARTS if (CHARTS_DIR / name).is_dir()]


# --- values.schema.json -------------------------------------------------------------------------

def merged_schema(chart_schema: dict[str, Any], common: dict[str, Any]) -> dict[str, Any]:
    """The chart's schema with the shared blocks taken from the library's common schema."""
    # the chart's own blocks; foreign placeholders are regenerated, so a key dropped from the list goes
    props = {k: v for k, v in chart_schema.get("properties", {}).items() if v.get("description") != FOREIGN_KEY_DOC}
    props.update(common["properties"])
    for key in common["sharedTopLevelKeys"]:
        props.setdefault(key, {"description": FOREIGN_KEY_DOC})
    definitions = {**chart_schema.get("definitions", {}), **common["definitions"]}
    out: dict[str, Any] = {
        "$schema": DRAFT,
        "title": chart_schema.get("title", ""),
        "type": "object",
        "additionalProperties": False,
        "properties": dict(sorted(props.items())),
        "definitions": dict(sorted(definitions.items())),
    }
    return out


def expected_schema(chart: Path) -> str:
    current = load_json(chart / "values.schema.json") if (chart / "values.schema.json").exists() else {}
    return dump_json(merged_schema(current, load_json(COMMON_SCHEMA)))


# --- chart README -------------------------------------------------------------------------------

_KEY_LINE = re.compile(r"^(?P<indent> *)(?P<key>[A-Za-z0-9_.\-\"']+):")


def documented_values(values_text: str) -> Iterator[tuple[str, str]]:
    """(dotted key, '# --' description) for every key in values.yaml, in file order."""
    stack: list[tuple[int, str]] = []
    pending = ""
    for line in values_text.splitlines():
        stripped = line.strip()
        if stripped.startswith("# --"):
            pending = stripped[4:].strip()
            continue
        if stripped.startswith("#") or not stripped or stripped.startswith("- "):
            continue
        m = _KEY_LINE.match(line)
        if not m:
            continue
        indent = len(m.group("indent"))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        key = m.group("key").strip("\"'")
        stack.append((indent, key))
        yield ".".join(k for _, k in stack), pending
        pending = ""


def lookup(values: Any, dotted: str) -> Any:
    cur = values
    for part in dotted.split("."):
        cur = cur[part]
    return cur


def render_readme(chart: Path) -> str:
    meta = yaml.safe_load((chart / "Chart.yaml").read_text(encoding="utf-8"))
    text = (chart / "values.yaml").read_text(encoding="utf-8")
    values = yaml.safe_load(text) or {}
    intro_path = chart / "README.intro.md"
    intro = intro_path.read_text(encoding="utf-8").strip() + "\n\n" if intro_path.exists() else ""
    rows = []
    for key, doc in documented_values(text):
        default = lookup(values, key)
        if isinstance(default, dict) and default and any(k.startswith(key + ".") for k, _ in documented_values(text)):
            rows.append(f"| `{key}` | object | see below | {doc} |")
            continue
        kind = type(default).__name__ if default is not None else "null"
        kind = {"dict": "object", "list": "list", "str": "string", "bool": "bool", "int": "int"}.get(kind, kind)
        shown = json.dumps(default, sort_keys=True)
        cell = doc.replace("|", "\\|")
        rows.append(f"| `{key}` | {kind} | `{shown}` | {cell} |")
    return (
        f"# {meta['name']}\n\n{meta['description']}\n\n{intro}"
        "## Values\n\n<!-- generated by `python -m slinkykit.devtools sync` from values.yaml; do not edit -->\n\n"
        "| Key | Type | Default | Description |\n|---|---|---|---|\n" + "\n".join(rows) + "\n"
    )


# --- packaged library ---------------------------------------------------------------------------

def _comparable(files: dict[str, bytes]) -> dict[str, Any]:
    """Helm re-serialises Chart.yaml when packaging: compare it as data, every other file as bytes."""
    out: dict[str, Any] = dict(files)
    if "Chart.yaml" in out:
        out["Chart.yaml"] = yaml.safe_load(out["Chart.yaml"])
    return out


def library_files() -> dict[str, Any]:
    """Library chart source files (relative to the chart folder), comparable with the packaged copy."""
    root = CHARTS_DIR / LIB_CHART
    return _comparable({p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()})


def packaged_library(chart: Path) -> dict[str, Any]:
    """Files inside the chart's charts/slinkykit-lib-*.tgz (without the top folder)."""
    archives = sorted((chart / "charts").glob(f"{LIB_CHART}-*.tgz"))
    if len(archives) != 1:
        raise FileNotFoundError(f"{chart.name}: expected one charts/{LIB_CHART}-*.tgz, found {len(archives)}")
    out: dict[str, bytes] = {}
    with tarfile.open(archives[0]) as tar:
        for member in tar.getmembers():
            if member.isfile():
                f = tar.extractfile(member)
                assert f is not None
                out[member.name.split("/", 1)[1]] = f.read()
    return _comparable(out)


# --- commands -----------------------------------------------------------------------------------

def drift() -> list[str]:
    """Names of generated files that differ from what their source gives."""
    problems: list[str] = []
    lib = library_files()
    for chart in chart_dirs():
        schema = chart / "values.schema.json"
        if not schema.exists() or schema.read_text(encoding="utf-8") != expected_schema(chart):
            problems.append(f"{schema}: out of date with {COMMON_SCHEMA.name}")
        readme = chart / "README.md"
        if not readme.exists() or readme.read_text(encoding="utf-8") != render_readme(chart):
            problems.append(f"{readme}: out of date with values.yaml")
        try:
            if packaged_library(chart) != lib:
                problems.append(f"{chart}/charts: packaged {LIB_CHART} differs from charts/{LIB_CHART}")
        except FileNotFoundError as exc:
            problems.append(str(exc))
    return problems


def sync(helm: Helm) -> None:
    for chart in chart_dirs():
        (chart / "values.schema.json").write_text(expected_schema(chart), encoding="utf-8")
        (chart / "README.md").write_text(render_readme(chart), encoding="utf-8")
        try:
            current = packaged_library(chart) == library_files()
        except FileNotFoundError:
            current = False
        if not current:  # repackaging changes timestamps: only when the library changed
            helm.run("dependency", "update", str(chart), "--skip-refresh")


def shellcheck_generated_scripts() -> list[str]:
    """shellcheck (style level) on deploy.sh and undeploy.sh of the demo bundle, built in a temporary folder."""
    from .demo import main as demo

    shellcheck = Path(sys.executable).parent / "shellcheck"
    with tempfile.TemporaryDirectory(prefix="slinkykit-lint-") as tmp:
        if demo(["--out", tmp]) != 0:
            return ["the demo bundle could not be built for shellcheck"]
        scripts = sorted(str(p) for p in Path(tmp).glob("bundle-*/*.sh"))
        if not scripts:
            return ["the demo bundle has no scripts to shellcheck"]
        proc = subprocess.run([str(shellcheck), "--severity=style", *scripts], capture_output=True, text=True,
                              check=False)
    return [f"shellcheck: {proc.stdout.strip()}"] if proc.returncode else []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m slinkykit.devtools", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["sync", "check", "lint"])
    args = parser.parse_args(argv)
    if args.command == "sync":
        sync(Helm.default())
        return 0
    problems = drift()
    if args.command == "lint" and not problems:
        helm = Helm.default()
        for chart in chart_dirs():
            try:
                helm.lint(chart)
            except HelmError as exc:
                problems.append(f"helm lint --strict {chart.name}: {exc.stderr.strip() or exc.message}")
        problems += shellcheck_generated_scripts()
    for p in problems:
        print(f"error: {p}", file=sys.stderr)
    if problems:
        print("fix: run `python -m slinkykit.devtools sync` and commit the result", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
