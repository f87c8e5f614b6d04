"""The host build of the C core, made once for the tests of this folder."""
import pytest

from .builds import make


@pytest.fixture(scope="session")
def host_build(tmp_path_factory):
    """The folder holding mjt-host (the core on a virtual table) and mjt-vectors."""
    build = tmp_path_factory.mktemp("firmware")
    make(build, "host", "vectors")
    return build
