"""A one-line progress bar on a terminal that measures work, not tasks (``verify``, ``audit``, ``prove``)."""

from __future__ import annotations

import sys
import threading
import time

__all__ = ["Progress"]


class Progress:
    """A one-line progress bar on a terminal (stderr); silent otherwise (notes: :doc:`/notes/present/progress`).

    Parameters
    ----------
    total, stream, enabled
        Number of tasks; where to draw (default ``sys.stderr``); whether to draw (default: when it is a terminal).
    tick, delay : float, optional
        Seconds between redraws while nothing finishes (default 1); before the bar first appears (default 0; a run
        that ends sooner draws nothing).
    weights : list of float, optional
        The estimated cost of each task, in the order of :meth:`start`'s tasks (default: 1 each).
    """

    def __init__(self, total: int, stream=None, enabled: bool | None = None, tick: float = 1.0, weights=None,
                 delay: float = 0.0):
        self.total = max(total, 1)
        self.done = 0
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.start_time = time.monotonic()
        self.tick = tick
        self.delay = max(float(delay), 0.0)
        self._drawn = False
        self.weights: list[float] = [] if weights is None else [max(float(w), 1e-3) for w in weights]
        self.names: list[str] = []
        self.left: set[int] = set()
        self.done_weight = 0.0
        self.label = ""
        self._shown = 0.0
        self._last = self.start_time
        self._thread: threading.Thread | None = None
        self._stop: threading.Event | None = None
        self._lock = threading.Lock()

    def note(self, text: str) -> None:
        """Show ``text`` on the line before the run starts (``planning the checks...``), when enabled.

        Parameters
        ----------
        text : str
            The text.
        """
        if self.enabled:
            self.stream.write(f"\r{text[:110]:<110}")
            self.stream.flush()

    def start(self, tasks) -> None:
        """Know the run's tasks and start the redraw thread.

        Parameters
        ----------
        tasks : list of rftheory.verify.engine.Task
            The run's tasks, in the order :meth:`step` will name them by index (and of ``weights``).
        """
        if len(self.weights) != len(tasks):
            self.weights = [1.0] * len(tasks)
        self.names = [t.key for t in tasks]
        self.left = set(range(len(tasks)))
        self.total = max(len(tasks), 1)
        self.start_time = self._last = time.monotonic()
        if self.enabled and self.tick and self._thread is None:
            self._stop = threading.Event()
            self._thread = threading.Thread(target=self._ticker, args=(self._stop,), name="rftheory-progress",
                                            daemon=True)
            self._thread.start()
        self._draw()  # at once: the line says what runs before the first task finishes

    def _ticker(self, stop: threading.Event) -> None:
        while not stop.wait(self.tick):
            self._draw()

    def fraction(self) -> float:
        """The share of the run done: the mean of its share of the tasks and of their estimated work.

        Notes: :doc:`/notes/present/progress`.

        Returns
        -------
        float
            In ``[0, 1]``.
        """
        if not self.weights:
            return self.done / self.total
        return 0.5 * (self.done / self.total + self.done_weight / sum(self.weights))

    def step(self, label: str = "", index: int | None = None) -> None:
        """Count one finished task and redraw the bar.

        Parameters
        ----------
        label, index
            Shown after the bar (e.g. the result ID); the task's index in :meth:`start`'s list (its weight counts done).
        """
        with self._lock:
            self.done += 1
            if index is not None and index in self.left:
                self.left.discard(index)
                self.done_weight += self.weights[index]
                self._last = time.monotonic()
            self.label = label
        self._draw()

    def _draw(self) -> None:
        if not self.enabled:
            return
        with self._lock:
            now = time.monotonic()
            el = now - self.start_time
            if el < self.delay:
                return
            self._drawn = True
            frac = self.fraction()
            bar = "#" * int(30 * frac) + "." * (30 - int(30 * frac))
            spin = "|/-\\"[int(el / max(self.tick, 1e-3)) % 4] if self.done < self.total else " "
            label = self.label
            if self.done == 0 and self.left and self.weights:  # nothing finished yet: what has started
                big = max(self.left, key=lambda i: self.weights[i])
                label = f"started {len(self.left)} tasks, longest first: {self.names[big]}"
            elif self.left and self.weights and len(self.left) <= max(4, self.total // 20):
                big = max(self.left, key=lambda i: self.weights[i])
                more = f" (+{len(self.left) - 1})" if len(self.left) > 1 else ""
                label = f"waiting for: {self.names[big]}{more}, {now - self._last:.0f} s"
            self.stream.write(f"\r[{bar}] {spin} {100 * frac:3.0f}% {self.done}/{self.total} {el:5.0f}s "
                              f"{label[:64]:<64}")
            self.stream.flush()

    def close(self) -> None:
        """Stop the redraws and erase the bar (when enabled)."""
        if self._thread is not None and self._stop is not None:  # set together in start()
            self._stop.set()
            self._thread.join(timeout=2)
            self._thread = None
        if self.enabled and (self._drawn or not self.delay):
            with self._lock:
                self.stream.write("\r" + " " * 120 + "\r")
                self.stream.flush()
