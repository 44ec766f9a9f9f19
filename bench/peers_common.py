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


def attempt(what, fn):
    """Runs one peer's measurement; a peer that fails says why and the
    others go on."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        print(f"{what} failed: {type(e).__name__}: {e}", flush=True)


def record_copy(dev):
    """The limit in the peers' run: a 1 GiB device-to-device copy_."""
    n = 1 << 28
    x = torch.rand(n, device=dev)
    y = torch.empty_like(x)
    record("copy", "torch.copy_", ms(lambda: y.copy_(x)), nbytes=2 * 4 * n)
