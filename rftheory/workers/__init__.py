"""Workers: run independent tasks here, on a local process pool or a Dask cluster, and stop them on a signal."""
