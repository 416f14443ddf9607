import pytest

from calc import add, clamp, mean, subtract


def test_add():
    assert add(2, 3) == 5


@pytest.mark.parametrize("a,b,expected", [(5, 3, 2), (0, 4, -4), (1.5, 0.5, 1.0)])
def test_subtract(a, b, expected):
    assert subtract(a, b) == pytest.approx(expected)


class TestMean:
    def test_simple(self):
        assert mean([1, 2, 3]) == 2

    def test_empty(self):
        with pytest.raises(ValueError, match="empty"):
            mean([])


@pytest.fixture
def bounds():
    return (0, 10)


def test_clamp(bounds):
    low, high = bounds
    assert clamp(-5, low, high) == 0
    assert clamp(50, low, high) == 10
    assert clamp(7, low, high) == 7
