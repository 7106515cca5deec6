"""Project suite: our own values-examples/ go through the same plugin option a site's CI uses."""

from __future__ import annotations

import os

import pytest

from slinkykit import REPO_ROOT


def pytest_configure(config: pytest.Config) -> None:
    # CI and a fresh clone keep the test schemas beside the repository (../shared/schemas).
    os.environ.setdefault("SLINKYKIT_SCHEMAS", str(REPO_ROOT.parent / "shared" / "schemas"))
    given = config.getoption("--slinkykit-values")
    if not given:
        examples = sorted((REPO_ROOT / "values-examples").glob("*-values.yaml"))
        config.option.slinkykit_values = [os.path.relpath(p) for p in examples]
