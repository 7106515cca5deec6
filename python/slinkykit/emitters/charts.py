"""Packaged charts: the ``.tgz`` layout ``helm package`` writes, built reproducibly.

The archive holds ``<chart>/<file>`` for every file of the chart folder that ``.helmignore`` does not
exclude (dependencies stay the ``charts/*.tgz`` archives Helm loads as they are). Entries are sorted,
owned by 0:0 with mode 0644 and mtime 0, and the gzip header carries no name or time, so the same
chart always gives the same bytes (``helm package`` stamps the packaging time into every entry).
"""

from __future__ import annotations

import fnmatch
import gzip
import io
import tarfile
from pathlib import Path

from .. import yamlio


def chart_metadata(chart_dir: Path) -> tuple[str, str]:
    """(name, version) from ``Chart.yaml``."""
    meta = yamlio.load((chart_dir / "Chart.yaml").read_text(encoding="utf-8"))
    return str(meta["name"]), str(meta["version"])


def archive_name(chart_dir: Path) -> str:
    name, version = chart_metadata(chart_dir)
    return f"{name}-{version}.tgz"


def _ignore_rules(chart_dir: Path) -> list[tuple[bool, bool, str]]:
    """``.helmignore`` as (negated, directory-only, pattern) rules; Helm's own subset of gitignore."""
    path = chart_dir / ".helmignore"
    rules = []
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            negated = line.startswith("!")
            line = line.removeprefix("!")
            dir_only = line.endswith("/")
            rules.append((negated, dir_only, line.rstrip("/").removeprefix("/")))
    return rules


def _ignored(rel: str, is_dir: bool, rules: list[tuple[bool, bool, str]]) -> bool:
    ignored = False
    name = rel.rsplit("/", 1)[-1]
    for negated, dir_only, pattern in rules:
        if dir_only and not is_dir:
            continue
        target = rel if "/" in pattern else name
        if fnmatch.fnmatchcase(target, pattern):
            ignored = not negated
    return ignored


def chart_files(chart_dir: Path) -> list[Path]:
    """Files of the chart that go into the archive, sorted by relative path."""
    rules = _ignore_rules(chart_dir)
    out: list[Path] = []

    def walk(folder: Path) -> None:
        for entry in sorted(folder.iterdir(), key=lambda p: p.name):
            rel = entry.relative_to(chart_dir).as_posix()
            if _ignored(rel, entry.is_dir(), rules):
                continue
            if entry.is_dir():
                walk(entry)
            elif entry.is_file():
                out.append(entry)

    walk(chart_dir)
    return out


def package(chart_dir: Path) -> bytes:
    """The chart as a reproducible ``.tgz`` in the layout Helm loads."""
    name, _ = chart_metadata(chart_dir)
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in chart_files(chart_dir):
            data = path.read_bytes()
            info = tarfile.TarInfo(f"{name}/{path.relative_to(chart_dir).as_posix()}")
            info.size = len(data)
            info.mode = 0o644
            info.mtime = 0
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0) as gz:
        gz.write(raw.getvalue())
    return out.getvalue()
