"""slinkykit: render, validate and ship the slinky-slurm Helm charts."""

from __future__ import annotations

from pathlib import Path

__version__ = "0.1.0"

#: Repository root when running from a checkout (charts/, values-examples/ live there).
REPO_ROOT = Path(__file__).resolve().parents[2]
CHARTS_DIR = REPO_ROOT / "charts"
PRE_CHART = "slinky-slurm-pre"
MAIN_CHART = "slinky-slurm"
LIB_CHART = "slinkykit-lib"
NAMESPACE = "slurm"
