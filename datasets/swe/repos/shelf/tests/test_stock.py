import pytest


def test_add_and_count(stock):
    stock.add("pear")
    assert stock.count("pear") == 1
    assert stock.count("apple") == 3


def test_negative_add_rejected(stock):
    with pytest.raises(ValueError):
        stock.add("apple", -1)
