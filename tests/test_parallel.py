"""Parallel sweeps: same outcomes for any worker count, checkpoint/resume, Dask, progress bar."""

import io
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict

import pytest

from rftheory.core.errors import ParameterError
from rftheory.verify import checkpoint
from rftheory.verify import engine as verify
from rftheory.verify import executors as parallel
from rftheory.workers import pool

PREFIX = "simrf.conformity.iid"


def _tasks():
    return [t for t in verify.plan("quick", PREFIX) if t.point.get("d", 2) <= 8]


def _dicts(outcomes):
    return [asdict(o) for o in outcomes]


@pytest.fixture(scope="module")
def reference():
    """The serial run (no executor): the outcomes every other schedule must reproduce."""
    return _dicts(verify.run(_tasks(), seed=3))


def test_one_and_two_workers_give_the_same_outcomes(reference):
    stream = io.StringIO()
    tasks = _tasks()
    progress = verify.Progress(len(tasks), stream=stream, enabled=True)
    two = verify.run(tasks, seed=3, progress=progress, executor=parallel.process_pool(2))
    assert _dicts(two) == reference
    assert f"{len(tasks)}/{len(tasks)}" in stream.getvalue()  # the progress bar reached the end
    one = verify.run(_tasks(), seed=3, executor=parallel.process_pool(1))
    assert _dicts(one) == reference
    with pytest.raises(ParameterError) as e:
        parallel.process_pool(0)
    assert e.value.name == "workers"


def test_pool_failure_falls_back_to_serial(monkeypatch, reference):
    import concurrent.futures

    def broken(*a, **k):
        raise OSError("no process pools here")

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", broken)
    assert _dicts(verify.run(_tasks(), seed=3, executor=parallel.process_pool(2))) == reference


def test_interrupted_sweep_resumes_without_recomputing(tmp_path, monkeypatch, reference):
    path = str(tmp_path / "ck.jsonl")
    tasks = _tasks()
    # run about half, then stop (as an interrupt does): close the generator early
    gen = checkpoint.checkpointed(parallel.process_pool(2), path)(tasks, 3)
    for k, _ in enumerate(gen):
        if k + 1 == len(tasks) // 2:
            break
    gen.close()
    with open(path, "a") as fh:
        fh.write('{"task": {"key": "half-written')  # a record cut by a kill is ignored
    finished = len(checkpoint.load_checkpoint(path))
    assert len(tasks) // 2 <= finished < len(tasks)

    calls = []
    real = verify.Task.run
    monkeypatch.setattr(verify.Task, "run", lambda self, seed: calls.append(self.key) or real(self, seed))
    out = verify.run(tasks, seed=3, executor=checkpoint.checkpointed(pool.serial, path))
    assert len(calls) == len(tasks) - finished  # finished points were not recomputed
    assert _dicts(out) == reference
    assert len(checkpoint.load_checkpoint(path)) == len(tasks)

    # a checkpoint written with another seed (or mode) is not reused
    calls.clear()
    verify.run(tasks[:3], seed=4, executor=checkpoint.checkpointed(pool.serial, path))
    assert len(calls) == 3
    calls.clear()
    other_mode = [verify.Task(t.key, t.result, t.kind, t.point, "default", t.zmax) for t in tasks[:2]]
    verify.run(other_mode, seed=3, executor=checkpoint.checkpointed(pool.serial, path))
    assert len(calls) == 2


@pytest.mark.slow
def test_killed_cli_sweep_loses_no_finished_point(tmp_path):
    """SIGKILL a real `rftheory verify --checkpoint` run and resume it: every grid point once, none lost."""
    path = tmp_path / "ck.jsonl"
    cmd = [sys.executable, "-m", "rftheory", "verify", "--quick", "--only", PREFIX, "--json", "--seed", "5"]
    proc = subprocess.Popen(cmd + ["--workers", "2", "--checkpoint", str(path)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if path.exists() and path.read_text().count("\n") >= 5:
                break
            time.sleep(0.05)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    before = len(checkpoint.load_checkpoint(str(path)))
    assert before >= 5
    resumed = subprocess.run(cmd + ["--workers", "1", "--checkpoint", str(path)], capture_output=True, text=True)
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    keys = [rec["task"]["key"] for rec in lines]
    assert len(keys) == len(set(keys)), "a finished grid point was recomputed"
    assert set(keys) == {t.key for t in verify.plan("quick", PREFIX)}
    outcomes = json.loads(resumed.stdout)["outcomes"]
    assert len(outcomes) == sum(len(rec["outcomes"]) for rec in lines)
    # (equality with an uninterrupted run: test_interrupted_sweep_resumes_without_recomputing)


def test_dask_local_cluster_gives_the_same_outcomes(reference):
    distributed = pytest.importorskip("dask.distributed")
    # one thread per worker: mpmath's precision is process-global
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        out = verify.run(_tasks(), seed=3, executor=parallel.dask(cluster.scheduler_address))
    assert _dicts(out) == reference


def test_executor_from_args(tmp_path):
    class Args:
        workers = 1
        checkpoint = str(tmp_path / "c.jsonl")
        scheduler = None

    out = verify.run(_tasks()[:2], seed=3, executor=parallel.executor_from_args(Args))
    assert out and len(checkpoint.load_checkpoint(Args.checkpoint)) == 2
    assert pool.default_workers() >= 1


def test_table_on_a_process_pool_equals_the_serial_table():
    """`rftheory table` evaluates its cells on a process pool (issue 15): the same cells, the same errors."""
    from rftheory.core.errors import ParameterError
    from rftheory.present.tables import make_table

    args = dict(grid=[("d", ["8", "16", "32"])], params={"v": "1/2"}, columns=("coupling", ["iid", "orthogonal"]),
                links={"m": "d"}, ratio_to="iid", digits=12)
    a = make_table("simrf.prf_mse", workers=1, **args)
    b = make_table("simrf.prf_mse", workers=2, **args)
    assert a.rows == b.rows and a.caption == b.caption and a.rows[0][1] == "1.00000000000"
    # an error raised in a worker reaches the caller as itself, naming the parameter
    with pytest.raises(ParameterError, match="'v'"):
        make_table("simrf.prf_mse", [("v", ["1", "2", "-3", "4"])], params={"d": "4", "m": "4", "coupling": "iid"},
                   workers=2)
    with pytest.raises(ParameterError, match="'workers'"):
        make_table("simrf.prf_mse", [("v", ["1"])], params={"d": "4"}, workers=0)


@pytest.mark.parametrize("workers", [1, 2])
def test_table_cells_keep_their_digits_beyond_float64(workers):
    """A 30-digit cell is e to 30 digits and a 14-decimal cell e⁹ to 14 decimals (ρ_iid = e^{v²}, Lemma 4.1):
    the values are not rounded to mpmath's global 53 bits on the way (in a worker or here)."""
    import mpmath as mp

    from rftheory.present.tables import make_table

    t = make_table("simrf.conformity.iid", [("v", ["1", "2", "3", "4"])], params={"d": "4"}, digits=30,
                   workers=workers)  # 4 cells: the pool's threshold
    with mp.workdps(40):
        assert t.rows[0][1] == mp.nstr(mp.e, 30) == "2.71828182845904523536028747135"
        assert t.rows[2][1] == mp.nstr(mp.exp(9), 30)
    t = make_table("simrf.conformity.iid", [("v", ["3"])], params={"d": "4"}, decimals=14, workers=workers)
    assert t.rows[0][1] == "8103.08392757538401"  # e⁹ = 8103.083927575384007709996...


def test_a_ratio_denominator_is_evaluated_once_per_row(monkeypatch):
    """--ratio-to iid: every cell of a row divides by the same iid value; it is computed once for the row
    (and is also the iid column's numerator), not once per column."""
    from rftheory.present import tables

    calls = []
    real = tables._evaluate
    monkeypatch.setattr(tables, "_evaluate", lambda res, point, *a: calls.append(dict(point)) or real(res, point, *a))
    t = tables.make_table("simrf.prf_mse", [("d", ["8", "16"])], params={"v": "1/2"}, links={"m": "d"},
                          columns=("coupling", ["iid", "orthogonal", "simplex"]), ratio_to="iid", digits=10)
    iid = [p for p in calls if p["coupling"] == "iid"]
    assert sorted(p["d"] for p in iid) == ["16", "8"]  # one iid evaluation per row
    assert len(calls) == 2 * 3  # each distinct point once: was 12 (a numerator and a denominator per cell)
    assert [r[1] for r in t.rows] == ["1.000000000", "1.000000000"]
    assert all(float(v[2]) < 1 for v in t.values)  # simplex/iid < 1 (SimRF, Thm 3.3)
