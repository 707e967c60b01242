"""Ball evaluators of the orf family (filled in as the ball layer grows)."""

from __future__ import annotations
