"""The Python calls cannot drift from the protocol's method table."""

import json
import os
import re
import subprocess
import sys

import streamcap
from streamcap import _methods, errors
from conftest import PYTHON_DIR, REPO


def openrpc():
    with open(os.path.join(REPO, "proto", "openrpc.json"), encoding="utf-8") as f:
        return json.load(f)


def table_names():
    """The wire names of the X-macro table in proto/sc_methods.h."""
    with open(os.path.join(REPO, "proto", "sc_methods.h"), encoding="utf-8") as f:
        text = f.read()
    table = text[text.index("#define SC_METHODS(X)") :]
    return re.findall(r'X\(\s*[A-Z_]+,\s*\w+,\s*"([a-z_.]+)"', table)


def test_methods_match_the_table():
    names = table_names()
    assert len(names) > 30
    assert list(_methods.METHODS) == names


def test_methods_match_openrpc_params():
    for m in openrpc()["methods"]:
        attr, req, opt, cls = _methods.METHODS[m["name"]]
        assert req == tuple(p["name"] for p in m["params"] if p["required"]), m["name"]
        assert opt == tuple(p["name"] for p in m["params"] if not p["required"]), m["name"]
        props = m["result"]["schema"].get("properties", {})
        fields = set(cls.__dataclass_fields__)
        assert fields == set(props), m["name"]


def test_generated_file_is_current():
    r = subprocess.run([sys.executable, os.path.join(PYTHON_DIR, "gen_methods.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_every_method_is_a_call_everywhere():
    for wire, (attr, *_rest) in _methods.METHODS.items():
        for cls in (streamcap.Client, streamcap.AsyncClient, streamcap.Pipeline):
            assert callable(getattr(cls, attr, None)), "%s.%s for %s" % (cls.__name__, attr, wire)
            assert getattr(cls, attr).__doc__, attr


def test_errors_match_the_error_table():
    table = {name: e["code"] for name, e in openrpc()["components"]["errors"].items()}
    assert table == _methods.ERROR_CODES
    assert {n: c.rpc_code for n, c in errors.BY_NAME.items()} == table
    for cls in errors.BY_NAME.values():
        assert issubclass(cls, streamcap.StreamcapError)
        assert cls.__doc__


def test_error_table_in_protocol_md_names_each_code():
    with open(os.path.join(REPO, "proto", "PROTOCOL.md"), encoding="utf-8") as f:
        text = f.read()
    codes = {int(c) for c in re.findall(r"^\| (-?\d+) \| `\w+` \|", text, re.M)}
    assert codes == set(errors.BY_CODE)


def test_public_names_have_docstrings():
    for name in streamcap.__all__:
        obj = getattr(streamcap, name)
        if callable(obj) or isinstance(obj, type):
            assert obj.__doc__, name
