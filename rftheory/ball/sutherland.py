"""Ball evaluators of the sutherland family (filled in as the ball layer grows)."""

from __future__ import annotations
