"""Both application charts: generated files in step with their sources, lint, schema, reproducibility."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from slinkykit import CHARTS_DIR, LIB_CHART, devtools
from slinkykit.helm import Helm
from slinkykit.pytest_plugin import RenderChart

CHARTS = [p.name for p in devtools.chart_dirs()]


@pytest.mark.parametrize("chart", CHARTS)
class TestChartHygiene:
    def test_packaged_library_matches_source(self, chart: str) -> None:
        assert devtools.packaged_library(CHARTS_DIR / chart) == devtools.library_files()

    def test_chart_lock_pins_the_library(self, chart: str) -> None:
        lock = yaml.safe_load((CHARTS_DIR / chart / "Chart.lock").read_text())
        assert [(d["name"], d["repository"]) for d in lock["dependencies"]] == [(LIB_CHART, f"file://../{LIB_CHART}")]

    def test_schema_is_generated_from_the_common_source(self, chart: str) -> None:
        path = CHARTS_DIR / chart / "values.schema.json"
        expected = devtools.expected_schema(CHARTS_DIR / chart)
        assert path.read_text() == expected, "run: python -m slinkykit.devtools sync"

    def test_schema_is_strict_draft7_without_remote_refs(self, chart: str) -> None:
        text = (CHARTS_DIR / chart / "values.schema.json").read_text()
        schema = json.loads(text)
        jsonschema.Draft7Validator.check_schema(schema)
        assert schema["additionalProperties"] is False
        assert '"$ref": "http' not in text

    def test_values_yaml_validates_against_schema(self, chart: str) -> None:
        schema = json.loads((CHARTS_DIR / chart / "values.schema.json").read_text())
        values = yaml.safe_load((CHARTS_DIR / chart / "values.yaml").read_text())
        jsonschema.Draft7Validator(schema).validate(values)

    def test_readme_lists_every_value_with_its_default(self, chart: str) -> None:
        readme = (CHARTS_DIR / chart / "README.md").read_text()
        assert readme == devtools.render_readme(CHARTS_DIR / chart), "run: python -m slinkykit.devtools sync"
        text = (CHARTS_DIR / chart / "values.yaml").read_text()
        keys = [k for k, _ in devtools.documented_values(text)]
        assert keys, "values.yaml has no keys"
        for key in keys:
            assert f"| `{key}` |" in readme

    def test_helm_lint_strict(self, chart: str, helm: Helm) -> None:
        out = helm.lint(CHARTS_DIR / chart)
        assert "0 chart(s) failed" in out

    def test_template_twice_is_byte_identical(self, chart: str, helm: Helm) -> None:
        values = [{"storage": {"enabled": True, "sharedStorageClass": "efs-sc"}}]
        first = helm.template(CHARTS_DIR / chart, values, release=chart, namespace="slurm")
        second = helm.template(CHARTS_DIR / chart, values, release=chart, namespace="slurm")
        assert first == second and first.strip()


def test_both_charts_accept_one_values_file(render_chart: RenderChart) -> None:
    """The same values file is accepted by every chart of the pair (no chart rejects the other's keys)."""
    schema_keys = [set(json.loads((CHARTS_DIR / c / "values.schema.json").read_text())["properties"]) for c in CHARTS]
    assert all(keys == schema_keys[0] for keys in schema_keys)
    for chart in CHARTS:
        assert render_chart(chart, {"storage": {"enabled": True, "sharedStorageClass": "efs-sc"}})


def test_library_chart_is_a_library() -> None:
    meta = yaml.safe_load(Path(CHARTS_DIR / LIB_CHART / "Chart.yaml").read_text())
    assert meta["type"] == "library"
