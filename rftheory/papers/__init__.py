"""The papers: one subpackage per source paper, each registering its results.

Each ``rftheory/papers/<paper>/`` holds that paper's *formulas* (pure
mathematics, one definition per formula, every backend), its *routes*
(independent definitions the formulas are checked against) and its
*entries* (the :class:`~rftheory.core.registry.Result` registrations, one per
result ID).  The registry imports every public subpackage (alphabetically)
the first time a result is looked up, so adding a paper means adding a
folder here and nothing else; its ``__init__`` imports the entry modules.

Mathematics shared by several papers lives in :mod:`rftheory.numerics`,
feature maps in :mod:`rftheory.features`, samplers in :mod:`rftheory.sampling`.
"""
