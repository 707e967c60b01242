"""Compare two ``rftheory verify --json`` reports outcome for outcome.

Usage: ``python tools/compare_verify.py BEFORE.json AFTER.json``.  Keys are
(result, point, check); prints the counts of verdict changes, changed values
or metrics, gone and new outcomes (grouped by result and check), and every
failure of AFTER.  Used to show that a refactoring changes no verdict.
"""

import collections
import json
import sys


def _key(o):
    return (o["result"], o.get("point_text", o["point"]) if isinstance(o["point"], dict) else o["point"], o["check"])


def _group(keys):
    return collections.Counter((k[0], k[2].split(":")[0] if k[2].startswith(("domain", "route")) else k[2])
                               for k in keys).most_common()


def main(before: str, after: str) -> int:
    a, b = json.load(open(before)), json.load(open(after))
    A, B = {_key(o): o for o in a["outcomes"]}, {_key(o): o for o in b["outcomes"]}
    same = [k for k in A if k in B]
    verdicts = [k for k in same if A[k]["verdict"] != B[k]["verdict"]]
    values = [k for k in same if (A[k]["value"], A[k]["other"], A[k]["metric"]) != (B[k]["value"], B[k]["other"], B[k]["metric"])]
    gone, new = [k for k in A if k not in B], [k for k in B if k not in A]
    print(f"before {len(A)} (passed: {a['passed']}), after {len(B)} (passed: {b['passed']})")
    print(f"same keys {len(same)}, verdict changed {len(verdicts)}, value/metric changed {len(values)}, "
          f"gone {len(gone)}, new {len(new)}")
    for k in verdicts:
        print("VERDICT", k, A[k]["verdict"], "->", B[k]["verdict"], B[k]["detail"][:200])
    for title, keys in (("changed", values), ("gone", gone), ("new", new)):
        print(f"{title}:")
        for item in _group(keys)[:60]:
            print("  ", item)
    fails = [k for k in B if B[k]["verdict"] != "pass"]
    print(f"failures after: {len(fails)}")
    for k in fails:
        print("  ", k, B[k]["detail"][:200])
    return 1 if verdicts or fails else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
