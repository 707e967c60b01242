"""Ball evaluators of the derf family (filled in as the ball layer grows)."""

from __future__ import annotations
