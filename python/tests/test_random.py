"""pipegpu's random numbers on the CPU reference: runs advance and replay
from (seed, run), threads each draw their own run, and the parts of a
sharded batch draw what the whole batch draws.

Runs under pytest, or as a script: python3 test_random.py."""
import threading

import numpy as np

from pipegpu_testing import pipegpu, NOISE, expect, rng


def test_random_runs_advance_and_replay():
    p = pipegpu.compile(NOISE)
    assert (p.seed, p.random_run) == (0, 0)
    x = np.zeros((3, 50), np.float32)
    first = p(x, backend='reference')[0].numpy()
    assert p.random_run == 1
    second = p(x, backend='reference')[0].numpy()
    assert not np.array_equal(first, second)
    p.random_run = 0
    np.testing.assert_array_equal(p(x, backend='reference')[0].numpy(), first)
    p.seed = 2 ** 64 - 1
    assert (p.seed, p.random_run) == (2 ** 64 - 1, 1)
    other = p(x, backend='reference')[0].numpy()
    assert not np.array_equal(other, second)
    # NumPy integers are taken as numbers, and named as numbers when out
    # of range (NumPy 2's repr would say np.int64(-3)).
    p.random_run = np.uint32(0)
    assert p.random_run == 0
    expect(pipegpu.ArgumentError, lambda: setattr(p, 'seed', np.int64(-3)),
           'seed is -3, which is negative')
    expect(pipegpu.ArgumentError, lambda: setattr(p, 'seed', True),
           'seed is an integer, not the bool True')
    # Standard normal noise: moments within 5 sigma of 0 and 1.
    assert abs(first.mean()) < 5 / np.sqrt(first.size)
    assert abs(first.std() - 1) < 0.2


def test_reference_runs_from_threads_each_draw_their_own_run():
    # Runs of one pipeline from several threads: each takes its own random
    # run number (none repeated, none lost), as the docs promise.
    p = pipegpu.compile(NOISE)
    x = np.zeros((2, 7), np.float32)
    results, errors = [], []

    def worker():
        try:
            for _ in range(25):
                results.append(p(x, backend='reference')[0].numpy().tobytes())
        except Exception as e:  # noqa: BLE001
            errors.append(e)
    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert p.random_run == 200
    assert len(set(results)) == 200


def test_shard_range_splits_evenly_and_checks_its_arguments():
    parts = [pipegpu.shard_range(1001, r, 4) for r in range(4)]
    assert parts == [(0, 251), (251, 250), (501, 250), (751, 250)]
    assert pipegpu.shard_range(2, 2, 3) == (2, 0)
    # Without torch.distributed initialized: the whole.
    assert pipegpu.shard_range(7) == (0, 7)
    expect(pipegpu.ArgumentError, lambda: pipegpu.shard_range(5, 3, 3),
           'the shard must be in [0, num_shards)')
    expect(pipegpu.ArgumentError, lambda: pipegpu.shard_range(5, 1),
           'give both shard_id and num_shards')


def test_parts_of_a_batch_draw_what_the_whole_batch_draws():
    # Two processes of a torchrun job, each with its part and its offset,
    # draw for their samples what one run over the whole batch draws.
    p = pipegpu.compile(NOISE)
    x = rng.standard_normal((7, 33)).astype(np.float32)
    whole = [r.numpy() for r in p(x, backend='reference')]
    parts = []
    for rank in range(2):
        q = pipegpu.compile(NOISE)
        begin, count = pipegpu.shard_range(7, rank, 2)
        q.batch_offset = begin
        assert q.batch_offset == begin
        parts.append([r.numpy() for r in
                      q(x[begin:begin + count], backend='reference')])
        # Setting the seed keeps the offset.
        q.seed = 0
        assert q.batch_offset == begin
    for r in range(len(whole)):
        np.testing.assert_array_equal(
            np.concatenate([part[r] for part in parts]), whole[r])
    expect(pipegpu.ArgumentError, lambda: setattr(p, 'batch_offset', -1),
           'is negative')
    # Seeds, run numbers and offsets are whole numbers in range, never
    # truncated or wrapped.
    before = (p.seed, p.random_run, p.batch_offset)
    for what, value in [('seed', -1), ('seed', 2 ** 64), ('seed', 2.7),
                        ('random_run', True), ('batch_offset', 2 ** 63)]:
        expect(pipegpu.ArgumentError, lambda: setattr(p, what, value),
               f'{what} is ')
    assert (p.seed, p.random_run, p.batch_offset) == before


if __name__ == '__main__':
    from pipegpu_testing import run_as_script
    run_as_script(globals())
