"""The verification engine, the only layer that judges: plan the checks, run them, compare, report.

:mod:`~rftheory.verify.engine` plans and runs the checks of every result, :mod:`~rftheory.verify.compare` turns
measurements into verdicts (:mod:`~rftheory.verify.outcome`), :mod:`~rftheory.verify.report` shows them;
:mod:`~rftheory.verify.schedule` and :mod:`~rftheory.verify.costs` order the tasks, :mod:`~rftheory.verify.executors`
and :mod:`~rftheory.verify.checkpoint` run them on workers and resume them.
"""
