"""Help texts of the ``rftheory`` command: each subcommand's examples and exit status.

Notes: :doc:`/notes/present/helptext`.
"""

__all__ = ["EPILOGS", "PARAM_HELP", "MAIN_EPILOG"]

#: the examples at the end of ``rftheory --help``
MAIN_EPILOG = """examples:
  rftheory list simrf                          the results of the SimRF paper
  rftheory show simrf.prf_mse                  one result: statement, citation, parameters, an eval line
  rftheory eval simrf.prf_mse -p d=8 -p m=8 -p v=1 -p coupling=simplex --dps 40
  rftheory table simrf.prf_mse --grid d=16,64,256 --link m=d -p v=0.1 --columns coupling=orthogonal,simplex \\
      --ratio-to iid --format latex              SimRF's Fig. 6 setting (m = d), as LaTeX
  rftheory plot simrf.prf_mse --x d=2:256:8 --link m=d -p v=1 --series coupling=orthogonal,simplex \\
      --ratio-to iid -o fig6.pdf
  rftheory verify --quick                      cross-check every result (exit 1 if a check fails)
  rftheory prove "simrf.prf_mse[coupling=simplex] < simrf.prf_mse[coupling=orthogonal]" --over d=2..12 \
      --link m=d --over v=0.5..2                 a claim proven on a whole box, in ball arithmetic
  rftheory theorems                            the papers' range claims: proven, disproven (errata), ...
  rftheory cite simrf.prf_mse --bibtex         how to cite the paper and rftheory
  rftheory SUBCOMMAND --help                   every subcommand's options, examples and exit status

exit status: 0 success; 1 a check (verify) or an audit failed; 2 a usage or input error (one line on
stderr); 130 interrupted (Ctrl-C); 143 terminated (SIGTERM)"""

#: the help of ``--param`` / ``-p``
PARAM_HELP = ("a parameter, repeatable: integers, decimals or fractions such as v=1/2 (exact), "
              "choices such as coupling=simplex; `rftheory show ID` lists each one's domain and default")

#: the examples (and exit codes) at the end of each subcommand's --help
EPILOGS = {
    "list": """examples:
  rftheory list                      every result, its source, parameters and notes
  rftheory list simrf.conformity     only IDs starting with simrf.conformity
  rftheory list --short              one line per result: ID and title
  rftheory list hrf --json           machine-readable

exit status: 0 listed; 2 no ID starts with PREFIX""",
    "eval": """examples:
  rftheory eval simrf.conformity.iid -p d=4 -p v=1            e, to 30 proven digits
  rftheory eval simrf.prf_mse -p d=8 -p m=8 -p v=1/2 -p coupling=simplex --dps 50
  rftheory eval simrf.conformity.orthogonal -p d=4 -p v=1 --layer float64
  rftheory eval simrf.conformity.iid -p d=4 -p v=1 --layer symbolic --json
  rftheory eval simrf.prf_mse -p d=8 -p m=8 -p v=1 -p coupling=orthogonal --layer mc --samples 20000 --seed 1
                                    a Monte Carlo estimate: mean ± standard error

exit status: 0 printed; 2 an unknown ID, a bad parameter, --dps, --samples or --seed""",
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
  rftheory table simrf.prf_mse --grid v=0.1,0.5,1,2 --grid d=16,64,256 --link m=d \\
      --columns coupling=orthogonal,simplex --ratio-to iid --format markdown
                               (the setting of SimRF's Fig. 6: m = d; columns orthogonal/iid, simplex/iid)
  rftheory table simrf.prf_mse --grid d=16,64,256 --link m=d -p v=0.1 --columns coupling=orthogonal,simplex \\
      --ratio-to iid --decimals 4 --label orthogonal=ORF/IID --label simplex=SimRF/IID \\
      --format latex --latex-label tab:fig6 --output fig6.tex
  rftheory table simrf.conformity.iid --grid v=1,2 -p d=4 --format csv -o t.csv --caption t.caption.txt
  rftheory table simrf.prf_mse --grid v=0.5,1 -p d=16 -p m=16 --columns coupling=orthogonal --format json

Each parameter is set once (an axis, -p or --link; a repeated axis is an error). Cells show --digits
significant digits (trailing zeros kept) or --decimals N places, proven or agreed either way. A ratio whose
denominator is 0 (e.g. 0/0 at v=0) prints n/a (null in JSON). LaTeX: booktabs rules, text escaped,
\\caption and \\label. Captions cite the papers (authors, year, title, venue).

exit status: 0 printed; 2 a bad axis, parameter, ratio, label or format; 130 Ctrl-C, 143 SIGTERM""",
    "show": """examples:
  rftheory show simrf.prf_mse            statement, source, parameters, layers, notes, an eval line
  rftheory show simrf.prf_mse --latex    only the statement's LaTeX
  rftheory show hrf.angular_hybrid_bound --json

exit status: 0 shown; 2 an unknown ID""",
    "cite": """examples:
  rftheory cite simrf.prf_mse                 the paper (Thm 3.2 of Reid et al. 2023) and rftheory
  rftheory cite simrf.prf_mse --bibtex        BibTeX: reid2023simplex, then rftheory
  rftheory cite yu2016orthogonal --bibtex     a paper by its key (or its package, orf)
  rftheory cite rftheory --bibtex             the software alone (also CITATION.cff)

exit status: 0 printed; 2 an unknown ID or paper""",
    "plot": """examples:
  rftheory plot simrf.conformity.iid --x v=0.1:4:40 -p d=4 -o iid.png
  rftheory plot simrf.prf_mse --x d=2,4,8,16,32,64 --link m=d -p v=1 --series coupling=orthogonal,simplex \\
      --ratio-to iid -o fig6.pdf          (SimRF's Fig. 6: MSE ratio to iid, m = d)
  rftheory plot orf.variance --x z=0.1:3:30 -p d=16 -p m=16 --logy -o orf.svg

--x NAME=lo:hi:n takes n log-spaced values (rounded to distinct integers for an
integer parameter). Axes are logarithmic when the values span more than two
decades, and an x axis of powers of two (d=2,4,8,...) is logarithmic to base 2
(override with --logx/--linx, --logy/--liny).

exit status: 0 written; 2 a bad axis, parameter, ratio or file (or a broken
matplotlib: it is a dependency of every install)""",
    "audit": """examples:
  rftheory audit sampler my_sampler.py:orf --d 16 --m 16         is my sampler right?
  rftheory audit sampler my_sampler.py:orf --d 8 --m 12 --json
  rftheory audit features sklearn.kernel_approximation:RBFSampler --kernel gaussian --sigma 0.70710678 --d 4 --m 64
  rftheory audit gallery                                         the real libraries installed here

exit status: 0 no check failed (untestable rows listed; --strict: exit 1); 1 the audit found a defect;
2 a usage error (also a call that overran --call-timeout)""",
    "audit sampler": """examples:
  rftheory audit sampler my_sampler.py:orf --d 16 --m 16         a file's function f(d, m, rng) -> W
  rftheory audit sampler mypkg.random:orthogonal --d 8 --m 24 --estimator prf --n 4000 --seed 1
  rftheory audit sampler my_sampler.py:student_t --d 8 --m 8 --law spherical --json
  rftheory audit sampler my_sampler.py:matern --d 8 --m 8 --kernel matern --nu 1.5 --lengthscale 0.5
  rftheory audit sampler my_torch.py:orf --d 64 --m 64 --threads 1 --call-timeout 120 --json   in CI
  rftheory audit sampler my_sampler.py:orf --d 16 --m 16 --alpha 1e-3 --until-decided --budget 300

exit status: 0 no check failed (untestable rows listed; --strict: exit 1); 1 the audit found a defect;
2 a usage error (also a call that overran --call-timeout)""",
    "audit features": """examples:
  rftheory audit features sklearn.kernel_approximation:RBFSampler --kernel gaussian --sigma 0.70710678 --d 4 --m 64
  rftheory audit features my_features.py:phi --kernel softmax --d 4 --m 16 --json
  rftheory audit features my_favor16.py:phi --kernel softmax --d 64 --m 256 --x-norm 2 4 8
  rftheory audit features my_favor16.py:phi --kernel softmax --d 64 --m 256 --x-data queries.npy
  rftheory audit features my_features.py:phi --kernel gaussian --d 4 --m 16 --until-decided --budget 300
  rftheory audit features my_features.py:phi --kernel matern --nu 1.5 --lengthscale 0.7 --d 4 --m 64

exit status: 0 no check failed (untestable rows listed; --strict: exit 1); 1 the audit found a defect;
2 a usage error (also a call that overran --call-timeout)""",
    "predict": """examples:
  rftheory predict sklearn:wine --kernel gaussian --sigma median --mechanism rff:iid,rff:orthogonal --m 13,52
  rftheory predict sklearn:wine --mechanism rff:iid,prf:orthogonal --m 64 --target 0.05
  rftheory predict data.npy --kernel softmax --scale 0.25 --mechanism prf:iid,sderf --m 256 --format json
  rftheory predict sklearn:digits --mechanism rff:orthogonal --m 256 --pairs 100000 --seed 1

exit status: 0 printed; 2 a bad data file, kernel, mechanism or option""",
    "sheet": """examples:
  rftheory sheet                             the formula sheet as Markdown, from the registry
  rftheory sheet --format latex -o sheet.tex  every result: statement, citation, parameters, errata
  rftheory sheet --format json --only simrf  only IDs starting with simrf

exit status: 0 written; 2 a bad format, prefix or file""",
}
