"""Timing and output helpers shared by the peer scripts: triton's do_bench
(the median, as ../shared/bench/peers.py times), a cold single call, and one
JSON line per measurement, which bench/report.py reads."""
import json
import time

import torch
import triton.testing as tt


def ms(fn, warmup=10, rep=50):
    return tt.do_bench(fn, warmup=warmup, rep=rep, return_mode="median")


def record(case, impl, t_ms, nbytes=None, **extra):
    row = {"case": case, "impl": impl, "ms": round(t_ms, 4)}
    if nbytes:
        row["GBps"] = round(nbytes / t_ms / 1e6, 1)
    row.update(extra)
    print(json.dumps(row), flush=True)


def cold(fn):
    """Milliseconds of one call, first compile included."""
    torch.cuda.synchronize()
    t = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t) * 1e3
