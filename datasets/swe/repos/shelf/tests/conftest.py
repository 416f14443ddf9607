import pytest

from shelf import Stock


@pytest.fixture
def stock():
    s = Stock()
    s.add("apple", 3)
    yield s
