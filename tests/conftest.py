"""Project suite: our own values-examples/ go through the same plugin option a site's CI uses."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from slinkykit import CHARTS_DIR, REPO_ROOT


def pytest_configure(config: pytest.Config) -> None:
    # CI and a fresh clone keep the test schemas beside the repository (../shared/schemas).
    os.environ.setdefault("SLINKYKIT_SCHEMAS", str(REPO_ROOT.parent / "shared" / "schemas"))
    given = config.getoption("--slinkykit-values")
    if not given:
        examples = sorted((REPO_ROOT / "values-examples").glob("*-values.yaml"))
        config.option.slinkykit_values = [os.path.relpath(p) for p in examples]


@pytest.fixture(scope="session")
def notes_chart(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """``notes_chart(name)``: a copy of the chart that also renders its NOTES.txt as a document
    ``{notes: text}`` (`helm template` never prints NOTES, and Helm 3's dry-run install wants a cluster)."""
    made: dict[str, Path] = {}

    def make(name: str) -> Path:
        if name not in made:
            root = tmp_path_factory.mktemp("notes") / name
            shutil.copytree(CHARTS_DIR / name, root)
            (root / "notes-probe.txt").write_text((root / "templates" / "NOTES.txt").read_text())
            (root / "templates" / "zz-notes-probe.yaml").write_text(
                'notes: {{ tpl (.Files.Get "notes-probe.txt") . | toJson }}\n')
            made[name] = root
        return made[name]

    return make
