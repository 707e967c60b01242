"""The core model: results and their registry, parameters and their domains, precision, errors, measurements.

Everything else stands on this package; it imports nothing of rftheory above it.
"""
