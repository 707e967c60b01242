"""Help texts of the ``rftheory`` command: each subcommand's examples and exit status.

Kept apart from :mod:`rftheory.cli` (which parses and runs) so that the
parser stays short; ``build_parser`` passes ``EPILOGS[name]`` as each
subcommand's epilog.
"""

__all__ = ["EPILOGS", "PARAM_HELP"]

#: the help of ``--param`` / ``-p``
PARAM_HELP = ("a parameter, repeatable: integers, decimals or fractions such as v=1/2 (exact), "
              "choices such as coupling=simplex; `rftheory show ID` lists each one's domain and default")

#: the examples (and exit codes) at the end of each subcommand's --help
EPILOGS = {
    "list": """examples:
  rftheory list                      every result, its source, parameters and notes
  rftheory list simrf.conformity     only IDs starting with simrf.conformity
  rftheory list hrf --json           machine-readable

exit status: 0 listed; 2 no ID starts with PREFIX""",
    "eval": """examples:
  rftheory eval simrf.conformity.iid -p d=4 -p v=1            e, to 30 certified digits
  rftheory eval simrf.prf_mse -p d=8 -p m=8 -p v=1/2 -p coupling=simplex --dps 50
  rftheory eval simrf.conformity.orthogonal -p d=4 -p v=1 --layer float64
  rftheory eval simrf.conformity.iid -p d=4 -p v=1 --layer symbolic --json

exit status: 0 printed; 2 an unknown ID, a bad parameter or --dps""",
    "verify": """examples:
  rftheory verify --quick                         every result, small grid
  rftheory verify --only simrf.conformity --workers 1
  rftheory verify --failures-only --wide          full detail of the failed checks only
  rftheory verify --json > report.json            point is an object, point_text the text
  rftheory verify --full --checkpoint run.jsonl   resumable after Ctrl-C, SIGTERM or a kill

The table ends with the checks that reproduce a recorded erratum (verdict pass*:
the paper's statement is false there) and a list of every failed check, or
"failures: none".

exit status:
  0    every check passed
  1    a check failed (listed at the end)
  2    a usage or input error (bad option, seed, prefix or checkpoint file)
  130  interrupted (Ctrl-C)
  143  terminated (SIGTERM)""",
    "table": """examples:
  rftheory table simrf.conformity.iid --grid v=0.5,1,2 -p d=4
  rftheory table simrf.prf_mse --grid v=0.5,1 -p d=16 -p m=16 --columns coupling=orthogonal,simplex \\
      --ratio-to iid --format markdown
  rftheory table simrf.prf_mse --grid d=2,4,8,16,32 --link m=d -p v=1 --columns coupling=orthogonal,simplex \\
      --ratio-to iid           (the setting of SimRF's Fig. 6: m = d)
  rftheory table simrf.conformity.iid --grid v=1,2 -p d=4 --format latex --output tab.tex

exit status: 0 printed; 2 a bad axis, parameter, ratio or format""",
    "show": """examples:
  rftheory show simrf.prf_mse            statement, source, parameters, layers, notes, an eval line
  rftheory show simrf.prf_mse --latex    only the statement's LaTeX
  rftheory show hrf.angular_hybrid_bound --json

exit status: 0 shown; 2 an unknown ID""",
}
