"""pytest plugin shipped with slinkykit (entry point ``pytest11``).

Fixtures:
  ``helm``          the Helm binary under test ($HELM_BIN or the project's tools folder)
  ``render_chart``  render a chart with values and get the parsed objects (raises HelmError)
  ``schema_store``  offline schemas ($SLINKYKIT_SCHEMAS or ``--slinkykit-schemas DIR``)
  ``conformance``   ``conformance(values)`` renders both charts and returns every finding

Site CI: ``pytest --slinkykit-values site-values.yaml [--slinkykit-values more.yaml]`` turns each
file into one test of the full invariant set (render, schemas, invariants, reproducibility).

Every render is counted per Helm version and reported at the end of the session; with
``--slinkykit-require-renders`` a session in which no render ran fails (a suite whose Helm tests
were all skipped is a failed suite).
"""

from __future__ import annotations

import contextlib
import functools
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from .conformance import Result, all_problems, conformance
from .helm import Helm, find_helm, parse_documents, resolve_chart
from .validation import SchemaStore, default_store

RenderChart = Callable[..., list[dict[str, Any]]]

_COUNTS: Counter[str] = Counter()
_TESTS: Counter[str] = Counter()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("slinkykit")
    group.addoption("--slinkykit-require-renders", action="store_true",
                    help="fail the session when no chart render ran (e.g. every Helm test skipped)")
    group.addoption("--slinkykit-values", action="append", default=[], metavar="FILE",
                    help="values file to check for conformance (repeatable; one test each)")
    group.addoption("--slinkykit-schemas", default=None, metavar="DIR",
                    help="folder of CRDs/schemas for offline validation (default: $SLINKYKIT_SCHEMAS)")


def as_layers(values: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None) -> list[Mapping[str, Any]]:
    """Values given as nothing, one mapping, or a list of mappings applied in order."""
    return [] if values is None else [values] if isinstance(values, Mapping) else list(values)


@contextlib.contextmanager
def counted_as_render_test(helm: Helm) -> Iterator[None]:
    """Counts the enclosed test as one render test when it rendered anything."""
    before = sum(_COUNTS.values())
    yield
    if sum(_COUNTS.values()) > before:
        _TESTS[helm.version] += 1


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
    layers = as_layers(values)
    try:
        text = helm.template(path, layers, release=release or path.name, namespace=namespace,
                             set_values=set_values, value_files=value_files)
    finally:  # a refused render is a render test too
        _COUNTS[helm.version] += 1
    return parse_documents(text)


def record_renders(helm: Helm, renders: int, *, test: bool = False) -> None:
    """Count renders made outside ``render_chart`` (and, with ``test``, one render test)."""
    _COUNTS[helm.version] += renders
    if test:
        _TESTS[helm.version] += 1


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
    def _render(chart: str | Path, values: Any = None, **kwargs: Any) -> list[dict[str, Any]]:
        return render(helm, chart, values, **kwargs)

    with counted_as_render_test(helm):
        yield _render


@pytest.fixture(scope="session")
def schema_store(pytestconfig: pytest.Config) -> SchemaStore:
    """Schemas from --slinkykit-schemas or $SLINKYKIT_SCHEMAS; fails (never skips) when there are none."""
    try:
        return default_store(pytestconfig.getoption("--slinkykit-schemas"))
    except FileNotFoundError as exc:
        pytest.fail(f"{exc}: custom resources cannot be validated", pytrace=False)


def check_values(helm: Helm, store: SchemaStore, values: Any = None, *,
                 value_files: Sequence[Path] = (), set_values: Sequence[str] = ()) -> Result:
    """Render both charts with the values and run every conformance check (counted as render tests)."""
    layers = as_layers(values)
    try:
        return conformance(helm, layers, store, value_files=value_files, set_values=set_values)
    finally:
        record_renders(helm, 4)  # two charts, rendered twice


@pytest.fixture
def conformance_check(helm: Helm, schema_store: SchemaStore) -> Iterator[Callable[..., Result]]:
    """``conformance_check(values=None, value_files=(), set_values=())`` -> :class:`Result`."""
    with counted_as_render_test(helm):
        yield functools.partial(check_values, helm, schema_store)


class ValuesFileItem(pytest.Item):
    """One ``--slinkykit-values`` file checked against every invariant."""

    def __init__(self, *, path_arg: Path, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.values_path = path_arg

    def runtest(self) -> None:
        helm = Helm(find_helm())
        store = default_store(self.config.getoption("--slinkykit-schemas"))
        try:
            result = all_problems(helm, [], store, value_files=[self.values_path])
        finally:
            record_renders(helm, 4, test=True)
        if not result.ok:
            raise ConformanceFailure(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ConformanceFailure):
            return "\n".join([f"{self.values_path}: not conformant", *excinfo.value.result.lines()])
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.values_path, 0, f"slinkykit conformance: {self.values_path}"


class ConformanceFailure(Exception):
    def __init__(self, result: Result) -> None:
        super().__init__("\n".join(result.lines()))
        self.result = result


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    for raw in config.getoption("--slinkykit-values"):
        path = Path(raw).resolve()
        if not path.is_file():
            raise pytest.UsageError(f"--slinkykit-values {raw}: no such file")
        items.append(ValuesFileItem.from_parent(session, name=f"slinkykit-values[{raw}]", path_arg=path))


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
