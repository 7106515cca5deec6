"""The one subprocess wrapper around the ``helm`` binary.

The binary comes from ``$HELM_BIN`` or the project's tools folder (``.tools/helm3/helm``,
installed by ``./dev setup``). Commands are argv lists, never shell strings; every call has a
timeout; a failure raises :class:`HelmError` carrying the command, stderr and the chart's one-line
message.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from . import CHARTS_DIR, REPO_ROOT, yamlio

DEFAULT_TIMEOUT = 120.0


class HelmError(RuntimeError):
    """A helm command failed; ``message`` is the chart's own error in one line."""

    def __init__(self, cmd: Sequence[str], returncode: int, stderr: str) -> None:
        self.cmd = list(cmd)
        self.returncode = returncode
        self.stderr = stderr
        self.message = one_line_error(stderr)
        super().__init__(self.message)


_EXEC_ERROR = re.compile(r"execution error at \([^)]*\): (.*)$")
_SCHEMA_AT = re.compile(r"^at '(?P<ptr>[^']*)': (?P<msg>.*)$")


def _schema_finding(line: str) -> str:
    """One schema finding as ``dotted.path: message`` whatever the Helm version's wording."""
    text = line.strip().removeprefix("- ")
    m = _SCHEMA_AT.match(text)  # Helm 4: at '/storage/home/name': 'X' does not match pattern ...
    if m:
        path = ".".join(p.replace("~1", "/").replace("~0", "~") for p in m["ptr"].split("/") if p)
        return f"{path or '(root)'}: {m['msg']}"
    return text  # Helm 3: storage.home.name: Does not match pattern ...


def one_line_error(stderr: str) -> str:
    """Reduce Helm's stderr to one line: the ``fail`` message, or the schema findings joined."""
    lines = [ln.rstrip() for ln in stderr.splitlines() if ln.strip()]
    lines = [ln for ln in lines if not ln.startswith(("Use --debug", "WARNING:", "walk.go"))]
    for ln in lines:
        m = _EXEC_ERROR.search(ln)
        if m:
            return m.group(1)
    if any("don't meet the specifications of the schema" in ln for ln in lines):
        findings = [_schema_finding(ln) for ln in lines if ln.strip().startswith("- ")]
        # Helm 3 refuses some values before validating (e.g. "yaml: control characters are not allowed")
        findings = findings or [ln.strip() for ln in lines[1:] if not ln.rstrip().endswith(":")]
        return "values.schema.json: " + "; ".join(findings)
    # Deepest line of a template stack trace carries the reason.
    return lines[-1].removeprefix("Error: ").strip() if lines else "helm failed without a message"


def resolve_chart(chart: str | Path) -> Path:
    """A chart folder: a path as given, or a chart name under the project's charts/ folder."""
    path = Path(chart)
    if not path.exists() and (CHARTS_DIR / str(chart)).is_dir():
        path = CHARTS_DIR / str(chart)
    return path


def find_helm() -> Path:
    """The helm binary: $HELM_BIN, else the project's .tools/helm3/helm, else PATH."""
    env = os.environ.get("HELM_BIN")
    if env:
        return Path(env)
    local = REPO_ROOT / ".tools" / "helm3" / "helm"
    if local.exists():
        return local
    found = shutil.which("helm")
    if found:
        return Path(found)
    raise FileNotFoundError("helm not found: set HELM_BIN or run ./dev setup to install the pinned Helm binaries")


@dataclass(frozen=True)
class Helm:
    """A helm binary and the calls slinkykit makes with it."""

    binary: Path
    timeout: float = DEFAULT_TIMEOUT

    @classmethod
    def default(cls) -> Helm:
        return cls(find_helm())

    def run(self, *args: str, cwd: Path | None = None) -> str:
        cmd = [str(self.binary), *args]
        cache = os.environ.get("HELM_CACHE_HOME", str(Path(tempfile.gettempdir()) / "slinkykit-helm-cache"))
        env = {**os.environ, "HELM_CACHE_HOME": cache}
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=self.timeout, cwd=cwd, env=env, check=False)
        if proc.returncode != 0:
            raise HelmError(cmd, proc.returncode, proc.stderr)
        return proc.stdout

    @cached_property
    def version(self) -> str:
        """Short version, e.g. ``v3.18.0``."""
        return self.run("version", "--short").strip().split("+")[0]

    @property
    def major(self) -> int:
        return int(self.version.lstrip("v").split(".")[0])

    def template(
        self,
        chart: Path | str,
        values: Sequence[Mapping[str, Any]] = (),
        *,
        release: str,
        namespace: str = "default",
        set_values: Sequence[str] = (),
        value_files: Sequence[Path] = (),
        extra: Sequence[str] = (),
    ) -> str:
        """``helm template`` the chart; returns the rendered YAML text.

        ``values`` are written as JSON (a YAML subset with no implicit typing, so a string such as
        ``1e12`` or ``no`` stays a string) to temporary files, after ``value_files``;
        ``set_values`` go through ``--set`` as written.
        """
        with tempfile.TemporaryDirectory(prefix="slinkykit-values-") as tmp:
            args = ["template", release, str(chart), "--namespace", namespace]
            for f in value_files:
                args += ["-f", str(f)]
            for i, v in enumerate(values):
                path = Path(tmp) / f"values-{i}.json"
                path.write_text(values_json(v), encoding="utf-8")
                args += ["-f", str(path)]
            for s in set_values:
                args += ["--set", s]
            return self.run(*args, *extra)

    def read_values(self, values: Sequence[Mapping[str, Any]] = (), *, value_files: Sequence[Path] = (),
                    set_values: Sequence[str] = ()) -> dict[str, Any]:
        """The user-supplied values exactly as Helm reads them (its YAML dialect, --set parsing, nulls kept),
        by rendering them through a one-template chart with no defaults."""
        with tempfile.TemporaryDirectory(prefix="slinkykit-echo-") as tmp:
            chart = Path(tmp) / "echo"
            (chart / "templates").mkdir(parents=True)
            (chart / "Chart.yaml").write_text("apiVersion: v2\nname: echo\nversion: 0.0.0\n", encoding="utf-8")
            (chart / "templates" / "values.yaml").write_text("{{ toJson .Values }}\n", encoding="utf-8")
            out = self.template(chart, values, release="echo", value_files=value_files, set_values=set_values)
        docs = yamlio.load_all(out)
        return dict(docs[0]) if docs else {}

    def package(self, chart: Path, destination: Path) -> Path:
        """``helm package`` the chart into ``destination``; returns the archive path."""
        out = self.run("package", str(chart), "--destination", str(destination))
        return Path(out.strip().rsplit(":", 1)[-1].strip())

    def lint(self, chart: Path, *args: str) -> str:
        return self.run("lint", "--strict", str(chart), *args)


# Characters YAML forbids raw in a file or reads as line breaks (NEL, LS, PS); JSON escapes C0 controls.
_NOT_PRINTABLE = re.compile("[\x7f-\x9f\u2028\u2029\ufffe\uffff]")


def values_json(values: Mapping[str, Any]) -> str:
    """Values as JSON that Helm's YAML reader takes back exactly: UTF-8 text (it rejects JSON's surrogate-pair
    escapes for characters beyond U+FFFF) with the characters YAML forbids raw escaped as ``\\uXXXX``."""
    text = json.dumps(values, sort_keys=True, ensure_ascii=False)
    return _NOT_PRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def parse_documents(text: str) -> list[dict[str, Any]]:
    """Parse rendered YAML, dropping empty documents."""
    return [d for d in yamlio.load_all(text) if d]
