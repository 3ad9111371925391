import pytest
from storage_helpers import KINDS, Backend


@pytest.fixture(params=KINDS)
def backend(request: pytest.FixtureRequest, tmp_path) -> Backend:  # noqa: ANN001
    """Every implementation of storage.Interface, each on a fresh database file."""
    return Backend(request.param, str(tmp_path / "state.db"))
