"""The plugin on a CUDA program: a .cu file built with nvcc, run under the
stand-in by the capture fixture, its graph's order asserted in a test file
of ten lines.  Skips, saying why, without nvcc ($STREAMCAP_NVCC)."""

import os
import subprocess

import pytest

from conftest import attached


@pytest.fixture(scope="module")
def cu_program(tmp_path_factory):
    nvcc = os.environ.get("STREAMCAP_NVCC")
    if not nvcc:
        pytest.skip(os.environ.get("STREAMCAP_NVCC_WHY") or "nvcc not found: STREAMCAP_NVCC is not set")
    out = str(tmp_path_factory.mktemp("cu") / "fork_join")
    src = os.path.join(os.path.dirname(__file__), "data", "fork_join.cu")
    r = subprocess.run([nvcc, "-cudart", "shared", "-o", out, src], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out


def test_ten_line_ci_file_on_a_cu_program(pytester, streamcapd, cu_program):
    pytester.makepyfile(
        '''
from streamcap import assert_happens_before

def test_relu_before_reduce(capture):
    graph = capture([%r]).graph
    assert_happens_before(graph, "relu", "reduce")
    assert_happens_before(graph, "scale", "reduce")

def test_relu_before_scale(capture):
    assert_happens_before(capture([%r]).graph, "relu", "scale")
'''
        % (cu_program, cu_program)
    )
    r = pytester.runpytest_subprocess(*attached(streamcapd))
    r.assert_outcomes(passed=1, failed=1)
    r.stdout.fnmatch_lines(["*expected 'scale' after 'relu' but no path exists; relu is on stream *"])
