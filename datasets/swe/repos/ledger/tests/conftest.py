import pytest

from ledger import Ledger


def pytest_configure(config):
    # --strict-markers (pyproject.toml) refuses marks nobody registered.
    config.addinivalue_line("markers", "money: ledger arithmetic")


@pytest.fixture
def ledger():
    book = Ledger()
    book.deposit("alice", 100)
    return book
