"""The default socket is the C client's: the same rule, the same path."""

import os
import re
import subprocess

import pytest

from streamcap import default_socket


def test_env_var_first():
    env = {"STREAMCAP_SOCKET": "/x/s.sock", "XDG_RUNTIME_DIR": "/run/user/5"}
    assert default_socket(env, uid=5) == "/x/s.sock"


def test_empty_env_var_is_unset():
    assert default_socket({"STREAMCAP_SOCKET": "", "XDG_RUNTIME_DIR": "/r"}, uid=5) == "/r/streamcap/streamcap.sock"


def test_relative_runtime_dir_is_ignored():
    assert default_socket({"XDG_RUNTIME_DIR": "rel"}, uid=1000) == "/tmp/streamcap-1000/streamcap.sock"


def test_root_and_others():
    assert default_socket({}, uid=0) == "/run/streamcap/streamcap.sock"
    assert default_socket({}, uid=42) == "/tmp/streamcap-42/streamcap.sock"


@pytest.mark.parametrize(
    "env",
    [
        {"STREAMCAP_SOCKET": "/nonexistent/a.sock"},
        {"STREAMCAP_SOCKET": "", "XDG_RUNTIME_DIR": "/nonexistent/xdg"},
        {"XDG_RUNTIME_DIR": "relative"},
        {},
    ],
)
def test_same_path_as_the_c_client(env):
    cli = os.environ.get("STREAMCAP_CLI")
    if not cli:
        pytest.skip("STREAMCAP_CLI is not set: no streamcap tool to compare with")
    full = {k: v for k, v in os.environ.items() if k not in ("STREAMCAP_SOCKET", "XDG_RUNTIME_DIR")}
    full.update(env)
    r = subprocess.run([cli, "--timeout", "1", "info"], env=full, capture_output=True, text=True)
    m = re.search(r"cannot connect to (\S+):", r.stderr)
    if m is None and r.returncode == 0:
        pytest.skip("a daemon listens on the default socket here")
    assert m, r.stderr
    assert m.group(1) == default_socket(full)
