"""Item counts with removal that never goes below zero."""


class Stock:
    def __init__(self):
        self._counts = {}

    def add(self, item, n=1):
        if n < 0:
            raise ValueError("n must be non-negative")
        self._counts[item] = self._counts.get(item, 0) + n

    def remove(self, item, n=1):
        have = self._counts.get(item, 0)
        self._counts[item] = have - n

    def count(self, item):
        return self._counts.get(item, 0)
