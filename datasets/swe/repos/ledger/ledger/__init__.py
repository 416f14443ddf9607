"""A tiny ledger of account balances."""

import logging

log = logging.getLogger("ledger")


class Ledger:
    def __init__(self):
        self.balances = {}

    def deposit(self, account, amount):
        if amount <= 0:
            raise ValueError(f"deposit must be positive, got {amount}")
        self.balances[account] = self.balances.get(account, 0) + amount
        log.info("deposit %s %s", account, amount)
        return self.balances[account]

    def withdraw(self, account, amount):
        balance = self.balances.get(account, 0)
        if amount >= balance:
            log.warning("overdraft refused for %s", account)
            raise ValueError("insufficient funds")
        self.balances[account] = balance - amount
        return self.balances[account]
