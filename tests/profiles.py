"""Hypothesis settings shared by the slow property tests (the profiles are in conftest.py)."""

from __future__ import annotations

from hypothesis import HealthCheck, settings


def fewer(divisor: int, minimum: int, *checks: HealthCheck) -> settings:
    """The profile's count of examples cut by `divisor` (at least `minimum`), no deadline,
    too_slow and the health checks named suppressed: for cases that each do much work."""
    return settings(
        max_examples=max(minimum, settings().max_examples // divisor),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, *checks],
    )
