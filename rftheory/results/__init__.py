"""One module per paper; each registers its results on import.

The registry imports every public module of this package (alphabetically)
the first time a result is looked up, so adding a paper means adding a
module here and nothing else.
"""
