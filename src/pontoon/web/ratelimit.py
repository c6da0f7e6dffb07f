"""A small token bucket per key (a client address, a seat token): ``allow(key)`` spends one token."""

from __future__ import annotations

import time
from collections import OrderedDict


class RateLimiter:
    """``capacity`` tokens, refilled at ``rate`` per second; at most ``max_keys`` keys remembered."""

    def __init__(self, capacity: float, rate: float, max_keys: int = 10_000) -> None:
        self.capacity = float(capacity)
        self.rate = float(rate)
        self.max_keys = max_keys
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def allow(self, key: str, now: float | None = None) -> bool:
        t = time.monotonic() if now is None else now
        tokens, last = self._buckets.pop(key, (self.capacity, t))
        tokens = min(self.capacity, tokens + (t - last) * self.rate)
        ok = tokens >= 1.0
        self._buckets[key] = (tokens - 1.0 if ok else tokens, t)
        while len(self._buckets) > self.max_keys:  # bounded memory under a flood of addresses
            self._buckets.popitem(last=False)
        return ok

    def describe(self) -> str:
        return f"at most {self.capacity:g} at once and {self.rate:g} per second"
