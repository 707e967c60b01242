"""The verification engine, the only layer that judges: plan the checks, run them, compare, report.

Notes: :doc:`/notes/verify/index`.
"""
