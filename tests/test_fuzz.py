"""Property: schema and templates agree.

For any generated values, either both charts render and every invariant and schema check passes
(and every Enroot entry appears exactly as written, one line each), or Helm refuses with a message
naming a value path. Never a successful render with an invalid object or an injected line.

Profiles (``HYPOTHESIS_PROFILE``): ``default`` (bounded, for every run) and ``long`` (nightly-style).
"""

from __future__ import annotations

import os
import string
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from slinkykit.conformance import ENROOT_CONFIGMAP, Result, conformance, error_paths
from slinkykit.helm import Helm
from slinkykit.pytest_plugin import record_renders
from slinkykit.validation import SchemaStore

settings.register_profile("default", max_examples=25, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.register_profile("long", max_examples=600, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

#: Helm 3 refuses a values file with a DEL character before any template runs; still a refusal.
HELM3_YAML_REFUSAL = "values.schema.json: yaml: control characters are not allowed"
CASES: Counter[str] = Counter()

DNS = st.from_regex(r"\A[a-z0-9]([-a-z0-9]{0,10}[a-z0-9])?\Z")
ANY_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
TRICKY = st.sampled_from(["", " ", "yes", "no", "on", "off", "true", "False", "null", "~", "0", "1", "1e3",
                          "08", "-n", "'q'", '"q"', "a b", "a\nb", "a\rb", "a\tb", "a\x00b", "a\x7fb", "${HOME}",
                          "${PATH}", "${X:-d}", "$(id -u)", "`id`", "a;b", "a#b", "ü", "/abs/path", "rel/path",
                          "x=y", "INIT,NET", "a\x85b", "a\u2028b", "\U0001f600"])
SCALAR = st.one_of(TRICKY, ANY_TEXT, st.booleans(), st.integers(-3, 10**6), st.just(1.5))
QUANTITY = st.one_of(st.sampled_from(["1Gi", "100Gi", "2Ti", "0", "0Gi", "0.5Ti", "1e3", "-1Gi", " 1Gi", "1.5",
                                      "10 Gi", "Gi", "1gi"]), st.from_regex(r"\A[0-9]{1,4}(Mi|Gi|Ti)\Z"))
MOUNT = st.one_of(st.sampled_from(["/home", "/scratch/fsw", "/data", "/", "home", "/a/", "/a/../b", "/a b"]),
                  st.from_regex(r"\A(/[a-z]{1,6}){1,3}\Z"))
CONFIG_KEYS = st.one_of(
    st.sampled_from(["ENROOT_MOUNT_HOME", "ENROOT_REMAP_ROOT", "ENROOT_ROOTFS_WRITABLE", "ENROOT_MAX_PROCESSORS",
                     "ENROOT_MAX_CONNECTIONS", "ENROOT_CACHE_PATH", "ENROOT_RUNTIME_PATH", "ENROOT_SQUASH_OPTIONS",
                     "ENROOT_GZIP_PROGRAM", "ENROOT_MOUNT_HOMES", "NVIDIA_VISIBLE_DEVICES", "https_proxy",
                     "HTTP_PROXY", "SSL_CERT_DIR", "ENROOT_FOO2"]),
    st.text(string.ascii_uppercase + "_", min_size=1, max_size=8).map(lambda s: "ENROOT_" + s))
ENV_KEYS = st.one_of(
    st.sampled_from(["NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "PATH", "LD_PRELOAD", "ENROOT_X", "1BAD", "A B", "A\nB",
                     "lower", "OMP_NUM_THREADS"]),
    st.from_regex(r"\A[A-Z_][A-Z0-9_]{0,8}\Z"))


def _volume(name: str) -> dict[str, Any]:
    return {"name": name, "emptyDir": {}}


@st.composite
def extra_sets(draw: st.DrawFn, kind: str) -> dict[str, Any]:
    """0-2 extra login or node sets, some with their own volumes and mounts (possibly conflicting)."""
    container = "login" if kind == "loginsets" else "slurmd"
    out: dict[str, Any] = {}
    for key in draw(st.lists(st.from_regex(r"\A[a-z][a-z0-9]{0,6}\Z"), max_size=2, unique=True)):
        spec: dict[str, Any] = {"enabled": draw(st.booleans())}
        if draw(st.booleans()):
            vol = draw(st.sampled_from(["scratch", "cache", "shared-home", "enroot-config"]))
            path = draw(st.one_of(st.sampled_from(["/home", "/etc/enroot/enroot.conf"]), MOUNT))
            spec["podSpec"] = {"volumes": [_volume(vol)]}
            spec[container] = {"volumeMounts": [{"name": vol, "mountPath": path}]}
        out[key] = spec
    return out


@st.composite
def values(draw: st.DrawFn) -> dict[str, Any]:
    storage: dict[str, Any] = {"enabled": draw(st.one_of(st.booleans(), st.sampled_from(["true", "no"])))}
    if draw(st.booleans()):
        storage["sharedStorageClass"] = draw(st.one_of(DNS, st.sampled_from(["", "Bad_Class"])))
    for vol in ("home", "data"):
        if draw(st.booleans()):
            storage[vol] = draw(st.fixed_dictionaries({}, optional={
                "name": st.one_of(DNS, st.sampled_from(["shared-home", "shared-data", "Bad"])),
                "storageClassName": st.one_of(DNS, st.just("")),
                "size": QUANTITY,
                "mountPath": MOUNT,
            }))
    out: dict[str, Any] = {
        "storage": storage,
        "enroot": {
            "config": draw(st.dictionaries(CONFIG_KEYS, st.one_of(SCALAR, st.none()), max_size=3)),
            "env": draw(st.dictionaries(st.one_of(ENV_KEYS, ANY_TEXT), st.one_of(SCALAR, st.none()), max_size=3)),
        },
    }
    if draw(st.booleans()):
        out["nodesets"] = draw(extra_sets("nodesets"))
        out["loginsets"] = draw(extra_sets("loginsets"))
    return out


SAFE_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zs", "Zl", "Zp"),
                                  exclude_characters="'\"$\x85"), max_size=10)


@st.composite
def plausible_values(draw: st.DrawFn) -> dict[str, Any]:
    """Values a careful operator would write (mostly accepted), so the success path is exercised too."""
    storage: dict[str, Any] = {"enabled": draw(st.booleans()), "sharedStorageClass": draw(DNS)}
    if draw(st.booleans()):
        storage["home"] = {"name": "home-" + draw(DNS), "size": draw(QUANTITY.filter(lambda q: q[0] in "123456789")),
                           "mountPath": draw(st.sampled_from(["/home", "/users"]))}
    bools = st.sampled_from(["ENROOT_MOUNT_HOME", "ENROOT_REMAP_ROOT", "ENROOT_ROOTFS_WRITABLE", "ENROOT_LOGIN_SHELL"])
    config = draw(st.dictionaries(bools, st.one_of(st.booleans(), st.sampled_from(["yes", "no", "TRUE", "n"])),
                                  max_size=3))
    if draw(st.booleans()):
        config["ENROOT_MAX_PROCESSORS"] = str(draw(st.integers(1, 512)))
    env_keys = st.from_regex(r"\A[A-Z][A-Z0-9_]{0,8}\Z").filter(
        lambda k: not k.startswith(("ENROOT_", "PATH", "LD_")))
    env = draw(st.dictionaries(env_keys, SAFE_TEXT.map(str.strip), max_size=4))
    out: dict[str, Any] = {"storage": storage, "enroot": {"config": config, "env": env}}
    if draw(st.booleans()):
        out["nodesets"] = {draw(st.from_regex(r"\A[a-z][a-z0-9]{0,5}\Z")): {
            "podSpec": {"volumes": [_volume("scratch")]},
            "slurmd": {"volumeMounts": [{"name": "scratch", "mountPath": "/local/scratch"}]}}}
    return out


def assert_property(result: Result, vals: dict[str, Any]) -> None:
    if result.error is not None:
        CASES["refused"] += 1
        event("refused by a chart rule")
        assert "\n" not in result.error, result.error
        assert error_paths(result.error) or result.error == HELM3_YAML_REFUSAL, \
            f"refusal names no value path: {result.error}"
        return
    CASES["rendered"] += 1
    event("rendered; every invariant and schema checked")
    assert result.ok, result.lines()


def assert_entries_verbatim(helm: Helm, vals: dict[str, Any], store: SchemaStore) -> None:
    """On success, each string entry the user gave appears as exactly one ``KEY=VALUE`` line."""
    from slinkykit.conformance import render_pair

    rendered = render_pair(helm, [vals])
    (cm,) = [o for o in rendered.pre if o["kind"] == "ConfigMap" and o["metadata"]["name"] == ENROOT_CONFIGMAP]
    env_lines = cm["data"]["99-aicr-defaults.env"].split("\n")
    for key, value in vals["enroot"]["env"].items():
        if isinstance(value, str):
            assert env_lines.count(f"{key}={value}") == 1


ANY_VALUES = st.one_of(values(), plausible_values())


@pytest.mark.render
@given(vals=ANY_VALUES)
@example(vals={"storage": {"enabled": True, "sharedStorageClass": "rwx"},
               "enroot": {"config": {}, "env": {"A": "x\nLD_PRELOAD=/evil.so"}}})
# Found by the default profile: a non-BMP character written as a JSON surrogate-pair escape broke Helm's reader.
@example(vals={"storage": {"enabled": False}, "enroot": {"config": {}, "env": {"NCCL_DEBUG": "\U00010000"}}})
# Found by the long profile: Go quotes a key "\x1f", which is not a JSON escape; the path reader choked.
@example(vals={"storage": {"enabled": False}, "enroot": {"config": {}, "env": {"\x1f": ""}}})
# Found by the long profile on Helm 4: a C1 control (U+0080) made Helm's toYaml return nothing, so the
# ConfigMap rendered without data; the chart now refuses such characters, and fails where toYaml would drop data.
@example(vals={"storage": {"enabled": False}, "enroot": {"config": {}, "env": {"NCCL_DEBUG": "\x80"}}})
# Found by the long profile: a claim named "0" rendered unquoted became the integer 0.
@example(vals={"storage": {"enabled": True, "sharedStorageClass": "0", "home": {"name": "0"}},
               "enroot": {"config": {}, "env": {}}})
@example(vals={"storage": {"enabled": False}, "enroot": {"config": {"ENROOT_REMAP_ROOT": "off"}, "env": {}}})
@example(vals={"storage": {"enabled": True, "sharedStorageClass": "rwx"}, "enroot": {"config": {}, "env": {}},
               "nodesets": {"gpu": {"enabled": True, "podSpec": {"volumes": [_volume("scratch")]},
                                    "slurmd": {"volumeMounts": [{"name": "scratch", "mountPath": "/home"}]}}},
               "loginsets": {}})
def test_schema_and_templates_agree(helm: Helm, schema_store: SchemaStore, vals: dict[str, Any]) -> None:
    record_renders(helm, 0, test=True)
    result = conformance(helm, [vals], schema_store, twice=False)
    assert_property(result, vals)
    if result.error is None:
        assert_entries_verbatim(helm, vals, schema_store)
    record_renders(helm, 2 if result.error else 4)


def test_fuzzing_exercised_both_outcomes(helm: Helm, schema_store: SchemaStore) -> None:
    """Guard against a generator that only ever produces refusals (or only successes)."""
    CASES.clear()
    run = settings(max_examples=15, derandomize=True, database=None)(given(vals=ANY_VALUES)(
        lambda vals: assert_property(conformance(helm, [vals], schema_store, twice=False), vals)))
    run()
    record_renders(helm, 2 * sum(CASES.values()), test=True)
    assert CASES["rendered"] >= 1 and CASES["refused"] >= 1, dict(CASES)
