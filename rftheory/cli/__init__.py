"""The ``rftheory`` command line (:mod:`rftheory.cli.commands`)."""
