"""Ball evaluators of the hrf family (filled in as the ball layer grows)."""

from __future__ import annotations
