"""The papers: one subpackage per source paper, each registering its results.

Derivation and notes: :doc:`/notes/papers/index`.
"""
