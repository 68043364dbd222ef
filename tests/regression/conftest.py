"""Shared by the regression tests: which grep backends this machine can run."""

from __future__ import annotations

import pytest

from sleuth.commands.profiles.backends import find_backend
from sleuth.engine.errors import BackendUnavailable


def backend_available(name: str) -> bool:
    try:
        find_backend(name)
    except BackendUnavailable:
        return False
    return True


def backend_params(*names: str) -> list:
    """``names`` as pytest params, the external ones skipped where their binary is missing."""
    return [name if name == "native" else
            pytest.param(name, marks=pytest.mark.skipif(not backend_available(name), reason=f"{name} is not installed"))
            for name in names]
