import logging

import pytest


@pytest.mark.money
@pytest.mark.parametrize("amount,left", [(30, 70), (100, 0)])
def test_withdraw(ledger, amount, left):
    assert ledger.withdraw("alice", amount) == left


def test_overdraft_is_refused_and_logged(ledger, caplog):
    with caplog.at_level(logging.WARNING, logger="ledger"):
        with pytest.raises(ValueError, match="insufficient"):
            ledger.withdraw("alice", 101)
    assert caplog.messages == ["overdraft refused for alice"]


def test_deposit_must_be_positive(ledger):
    with pytest.raises(ValueError, match="positive"):
        ledger.deposit("alice", 0)
