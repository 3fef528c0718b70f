"""Shared fixtures of the Python suite: the plugin's daemon, and helpers
that build small graphs through the protocol."""

import os

import pytest

pytest_plugins = ["pytester"]

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PYTHON_DIR = os.path.join(REPO, "python")

# How pytester's runs load the plugin (not installed: no entry point).
PLUGIN = ["-p", "streamcap.pytest_plugin"]


def attached(streamcapd):
    """pytester arguments that load the plugin on this session's daemon."""
    return PLUGIN + ["--streamcap-socket", streamcapd.socket]


def submit_fork_join(client, join=True, label="fork join", races=False):
    """Capture upload -> relu (stream 2) -> download in a default-mode
    session; without ``join`` stream 2 is never joined back.  With
    ``races`` relu writes and download reads the same buffer."""
    buf = [{"address": 4096, "size": 256, "mode": "write"}] if races else None
    rd = [{"address": 4096, "size": 256, "mode": "read"}] if races else None
    s = client.session_open(label=label).session
    client.capture_begin(session=s, stream=0)
    client.capture_record_memcpy(session=s, stream=0, name="upload", dir="host_to_device", size_bytes=4096)
    client.capture_record_event(session=s, stream=0, event=0)
    client.capture_begin(session=s, stream=2)
    client.capture_wait_event(session=s, stream=2, event=0)
    client.capture_record_kernel(
        session=s, stream=2, function_name="relu", num_blocks=4, threads_per_block=256, accesses=buf
    )
    if join:
        client.capture_record_event(session=s, stream=2, event=1)
        client.capture_wait_event(session=s, stream=0, event=1)
    client.capture_record_memcpy(
        session=s, stream=0, name="download", dir="device_to_host", size_bytes=4096, accesses=rd
    )
    return client.capture_end(session=s, stream=0).graph


@pytest.fixture
def fork_join(streamcap_client):
    """The id of a stored, joined fork/join graph."""
    return submit_fork_join(streamcap_client)


@pytest.fixture
def forgotten_join(streamcap_client):
    """The id of a fork/join graph whose stream 2 is never joined back."""
    return submit_fork_join(streamcap_client, join=False, label="forgotten join")
