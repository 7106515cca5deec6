"""pytest plugin shipped with slinkykit (entry point ``pytest11``).

Fixtures:
  ``helm``          the Helm binary under test ($HELM_BIN or the project's tools folder)
  ``render_chart``  render a chart with values and get the parsed objects (raises HelmError)

Every render is counted per Helm version and reported at the end of the session; with
``--slinkykit-require-renders`` a session in which no render ran fails (a suite whose Helm tests
were all skipped is a failed suite).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from .helm import Helm, find_helm, parse_documents, resolve_chart

RenderChart = Callable[..., list[dict[str, Any]]]

_COUNTS: Counter[str] = Counter()
_TESTS: Counter[str] = Counter()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("slinkykit")
    group.addoption("--slinkykit-require-renders", action="store_true",
                    help="fail the session when no chart render ran (e.g. every Helm test skipped)")


def render(
    helm: Helm,
    chart: str | Path,
    values: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None,
    *,
    release: str | None = None,
    namespace: str = "slurm",
    set_values: Sequence[str] = (),
    value_files: Sequence[Path] = (),
) -> list[dict[str, Any]]:
    """Render one chart and parse it, dropping empty documents."""
    path = resolve_chart(chart)
    layers = [] if values is None else [values] if isinstance(values, Mapping) else list(values)
    try:
        text = helm.template(path, layers, release=release or path.name, namespace=namespace,
                             set_values=set_values, value_files=value_files)
    finally:  # a refused render is a render test too
        _COUNTS[helm.version] += 1
    return parse_documents(text)


@pytest.fixture(scope="session")
def helm() -> Helm:
    try:
        binary = find_helm()
    except FileNotFoundError as exc:
        pytest.fail(str(exc), pytrace=False)
    h = Helm(binary)
    try:
        h.version  # noqa: B018 - fail here, not in the first test, when the binary does not run
    except Exception as exc:
        pytest.fail(f"{binary} does not run: {exc}", pytrace=False)
    return h


@pytest.fixture
def render_chart(helm: Helm) -> Iterator[RenderChart]:
    """``render_chart(chart, values=None, release=..., namespace="slurm", set_values=(), value_files=())``."""
    before = sum(_COUNTS.values())

    def _render(chart: str | Path, values: Any = None, **kwargs: Any) -> list[dict[str, Any]]:
        return render(helm, chart, values, **kwargs)

    yield _render
    if sum(_COUNTS.values()) > before:
        _TESTS[helm.version] += 1


def pytest_configure(config: pytest.Config) -> None:
    config._slinkykit_totals = Counter()  # type: ignore[attr-defined]


def pytest_testnodedown(node: Any, error: Any) -> None:
    """xdist controller: add up what each worker counted."""
    out = getattr(node, "workeroutput", {})
    totals: Counter[str] = node.config._slinkykit_totals
    totals.update(out.get("slinkykit_tests", {}))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    if hasattr(config, "workeroutput"):  # xdist worker: hand the counts to the controller
        config.workeroutput["slinkykit_tests"] = dict(_TESTS)
        return
    totals: Counter[str] = config._slinkykit_totals  # type: ignore[attr-defined]
    totals.update(_TESTS)
    config._slinkykit_summary = dict(totals)  # type: ignore[attr-defined]
    if config.getoption("--slinkykit-require-renders") and sum(totals.values()) == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    totals: dict[str, int] = getattr(config, "_slinkykit_summary", {})
    if not totals and not config.getoption("--slinkykit-require-renders"):
        return
    terminalreporter.section("slinkykit")
    for version, n in sorted(totals.items()):
        terminalreporter.write_line(f"helm render tests on Helm {version}: {n}")
    if sum(totals.values()) == 0:
        terminalreporter.write_line("helm render tests: 0 -- no chart was rendered; failing the run")
