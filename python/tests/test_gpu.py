"""pipegpu on the GPU with torch, CuPy and JAX where they and a GPU are
there (each test says SKIP and why otherwise): memory shared, the caller's
stream honoured, random draws equal to the reference's, torchrun ranks.

Runs under pytest, or as a script: python3 test_gpu.py."""
import os
import threading

import numpy as np

from pipegpu_testing import (pipegpu, NOISE, NORMALIZE, expect, inputs, rng,
                             skip, slowly_made_fours, torch_cuda)


def test_random_draws_agree_on_the_gpu_and_the_reference():
    torch = torch_cuda()
    p = pipegpu.compile(NOISE)
    x = rng.standard_normal((5, 301)).astype(np.float32)
    p.seed, p.random_run = 99, 4
    y, k = p(torch.from_numpy(x).cuda())
    p.random_run = 4
    ref_y, ref_k = p(x, backend='reference')
    np.testing.assert_array_equal(torch.from_dlpack(y).cpu().numpy(),
                                  ref_y.numpy())
    np.testing.assert_array_equal(torch.from_dlpack(k).cpu().numpy(),
                                  ref_k.numpy())
    assert p.random_run == 5


def test_parts_of_a_batch_draw_on_the_gpu_what_the_whole_draws():
    torch = torch_cuda()
    p = pipegpu.compile(NOISE)
    x = torch.from_numpy(rng.standard_normal((9, 65)).astype(np.float32)).cuda()
    whole = [torch.from_dlpack(r).cpu() for r in p(x)]
    for rank in range(3):
        begin, count = pipegpu.shard_range(9, rank, 3)
        p.random_run, p.batch_offset = 0, begin
        part = [torch.from_dlpack(r).cpu() for r in p(x[begin:begin + count])]
        for r in range(len(whole)):
            assert torch.equal(part[r], whole[r][begin:begin + count])


def test_torchrun_ranks_give_what_one_process_gives(tmp_path):
    # examples/torchrun/train_shards.py under torchrun with two ranks (on
    # one GPU here) against one process: the ranks' parts, put together,
    # are the whole batch, random crops and flips included.
    torch_cuda()
    import subprocess
    import sys
    example = os.path.join(os.path.dirname(__file__), '..', '..', 'examples',
                           'torchrun', 'train_shards.py')
    images = tmp_path / 'images.npy'
    np.save(images, rng.integers(0, 256, (64, 40, 52, 3), dtype=np.uint8))
    env = dict(os.environ, PYTHONPATH=os.path.dirname(pipegpu.__file__) + '/..')
    for name, launch in (('one', [sys.executable]),
                         ('two', [sys.executable, '-m', 'torch.distributed.run',
                                  '--nproc-per-node=2', '--master-port=29517'])):
        out = tmp_path / name
        out.mkdir()
        subprocess.run(launch + [example, str(images)], check=True,
                       env=dict(env, PIPE_EXAMPLE_OUT=str(out)), timeout=300)
    whole = np.load(tmp_path / 'one' / 'batch0_from0.npy')
    parts = sorted((tmp_path / 'two').glob('batch0_from*.npy'),
                   key=lambda p: int(p.stem.split('from')[1]))
    assert len(parts) == 2
    np.testing.assert_array_equal(np.concatenate([np.load(p) for p in parts]),
                                  whole)


def test_torch_tensors_in_and_out_share_memory():
    torch = torch_cuda()
    p = pipegpu.compile(NORMALIZE)
    x, mean, inv = inputs(4, 37, 29)
    tx, tmean, tinv = (torch.from_numpy(a).cuda() for a in (x, mean, inv))
    y, bright = p(tx, tmean, tinv)
    assert y.device == (2, 0)
    ty = torch.from_dlpack(y)
    assert ty.data_ptr() == y.data_ptr
    ref_y, ref_bright = p(x, mean, inv, backend='reference')
    np.testing.assert_array_equal(ty.cpu().numpy(), ref_y.numpy())
    np.testing.assert_array_equal(torch.from_dlpack(bright).cpu().numpy(),
                                  ref_bright.numpy())
    # A strided view is named, not read wrongly (torch tensors on torch's
    # stream are read from their attributes, strides included).
    expect(pipegpu.ArgumentError,
           lambda: p(tx.transpose(1, 2), tmean, tinv),
           "input 'x' is not compact and row-major")
    # Empty tensors: torch gives them strides that are not the compact
    # ones (the C API takes any strides when a dim is 0).
    empty = torch.empty((2, 0, 7, 3), dtype=torch.uint8, device='cuda')
    assert p(empty, tmean, tinv)[0].shape == (2, 3, 0, 7)
    # Into the caller's tensors, in place.
    out_y = torch.empty((4, 3, 37, 29), device='cuda')
    out_b = torch.empty(4, dtype=torch.bool, device='cuda')
    pointer = out_y.data_ptr()
    p(tx, tmean, tinv, out=[out_y, out_b])
    assert out_y.data_ptr() == pointer
    np.testing.assert_array_equal(out_y.cpu().numpy(), ref_y.numpy())


def test_torch_current_stream_is_honoured():
    torch = torch_cuda()
    p = pipegpu.compile('pipeline s(x: f32[N]) -> (y: f32[N]) {\n'
                        '  y = x * 2\n}\n')
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        # Queued on the side stream before the run: the run must see it.
        x = slowly_made_fours(torch)
        y = torch.from_dlpack(p(x))
    side.synchronize()
    assert float(y.min()) == 8.0 and float(y.max()) == 8.0


def test_torch_calls_of_one_signature_reuse_their_arrays():
    # After the first torch call, calls on contiguous CUDA tensors reuse
    # the DLTensor arrays of their signature and only set the pointers:
    # each call must still read its own tensors, from any thread.
    torch = torch_cuda()
    p = pipegpu.compile('pipeline s(x: f32[N], k: f32) -> (y: f32[N]) {\n'
                        '  y = x * k + 1\n}\n')
    k = torch.tensor(3.0, device='cuda')
    for n in (5, 5, 1000, 5, 0):
        x = torch.rand(n, device='cuda')
        torch.testing.assert_close(torch.from_dlpack(p(x, k)), x * 3 + 1,
                                   rtol=0, atol=0)
        out = torch.empty(n, device='cuda')
        assert p(x, k, out=out)[0] is out
        torch.testing.assert_close(out, x * 3 + 1, rtol=0, atol=0)
    errors = []

    def worker(seed):
        g = torch.Generator(device='cuda').manual_seed(seed)
        try:
            for _ in range(200):
                x = torch.rand(4099, device='cuda', generator=g)
                out = torch.empty_like(x)
                p(x, k, out=[out])
                if not torch.equal(out, x * 3 + 1):
                    errors.append(seed)
        except Exception as e:  # noqa: BLE001
            errors.append(e)
    threads = [threading.Thread(target=worker, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert p._torch_calls, 'the calls did not take the per-signature path'
    # A call that gives the right inputs and too many outputs (k again)
    # fails, and leaves nothing that a right call would take. (With an
    # input missing, the input count is refused first.)
    x = torch.rand(7, device='cuda')
    y = torch.empty(7, device='cuda')
    expect(pipegpu.ArgumentError, lambda: p(x, k, out=[k, y]),
           "has 1 result, got 2")
    expect(pipegpu.ArgumentError, lambda: p(x, out=[k, y]),
           "takes 2 inputs, got 1")
    p(x, k, out=[y])
    torch.testing.assert_close(y, x * 3 + 1, rtol=0, atol=0)
    # A wrong dtype on this path is still named.
    expect(pipegpu.ArgumentError,
           lambda: p(torch.zeros(3, dtype=torch.float64, device='cuda'), k),
           "input 'x' is float64")


def test_images_from_and_to_device_tensors(tmp_path):
    torch = torch_cuda()
    x = torch.randint(0, 256, (11, 7, 3), dtype=torch.uint8, device='cuda')
    pipegpu.write_image(tmp_path / 'x.png', x)
    back = torch.from_dlpack(pipegpu.read_image(tmp_path / 'x.png'))
    assert torch.equal(back, x.cpu())


def test_torch_tensors_on_a_stream_given():
    # stream= another stream than torch's current one: the DLPack
    # handshake orders the work queued on the current stream before the
    # run; stream= the current one takes the attribute path.
    torch = torch_cuda()
    p = pipegpu.compile('pipeline s(x: f32[N]) -> (y: f32[N]) {\n'
                        '  y = x * 2\n}\n')
    other, side = torch.cuda.Stream(), torch.cuda.Stream()
    for stream in (other, side):
        # Under `side` as torch's current stream: stream=side is that
        # stream (no handshake needed), stream=other another one.
        with torch.cuda.stream(side):
            x = slowly_made_fours(torch)
            out = torch.empty_like(x)
            p(x, out=out, stream=stream)
        stream.synchronize()
        assert float(out.min()) == 8.0 and float(out.max()) == 8.0


def test_dropping_a_result_waits_for_its_stream_only():
    # A result of a run on the legacy default stream (torch's default) is
    # freed in that stream's order: dropping it does not wait for a
    # non-blocking stream's work, as cuMemFree's device-wide wait would.
    torch = torch_cuda()
    p = pipegpu.compile('pipeline s(x: f32[N]) -> (y: f32[N]) {\n'
                        '  y = x * 2\n}\n')
    x = torch.rand(1 << 20, device='cuda')
    y = p(x)
    assert torch.equal(torch.from_dlpack(y), x * 2)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.cuda._sleep(2_000_000_000)  # about a second
    del y
    busy = not side.query()
    side.synchronize()
    assert busy, 'dropping the result waited for another stream'


def test_cubic_resize_matches_torch():
    # An oracle outside Pipe: torch's antialiased bicubic is Keys' cubic
    # with a = -0.5, cut at the edges and normalized, as docs/language.md
    # defines interp = cubic; down and up, on the GPU and the reference.
    torch = torch_cuda()
    for size in [(23, 17), (61, 90)]:
        p = pipegpu.compile(
            'pipeline r(x: f32[N, H, W, 3]) -> (y: f32[N, %d, %d, 3]) {\n'
            '  y = resize(x, size = [%d, %d], interp = cubic)\n}\n'
            % (size * 2))
        x = torch.rand((2, 41, 57, 3), device='cuda')
        want = torch.nn.functional.interpolate(
            x.permute(0, 3, 1, 2), size=size, mode='bicubic',
            antialias=True, align_corners=False).permute(0, 2, 3, 1)
        got = torch.from_dlpack(p(x))
        torch.testing.assert_close(got, want, rtol=0, atol=1e-4)
        ref = p(x.cpu().numpy(), backend='reference').numpy()
        np.testing.assert_array_equal(got.cpu().numpy(), ref)


def test_cupy_arrays_in_and_out():
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
    except Exception:
        skip('no CuPy or no GPU')
    p = pipegpu.compile(NORMALIZE)
    x, mean, inv = inputs(2, 9, 11)
    cx, cmean, cinv = (cupy.asarray(a) for a in (x, mean, inv))
    y, bright = p(cx, cmean, cinv)
    cy = cupy.from_dlpack(y)
    assert cy.data.ptr == y.data_ptr
    view = cupy.asarray(y)  # __cuda_array_interface__
    assert view.data.ptr == y.data_ptr
    ref_y, _ = p(x, mean, inv, backend='reference')
    np.testing.assert_array_equal(cupy.asnumpy(cy), ref_y.numpy())


def test_jax_arrays_in():
    try:
        import jax
        gpu = jax.devices('gpu')[0]
    except Exception:
        skip('no JAX GPU')
    import jax.numpy as jnp
    p = pipegpu.compile(NORMALIZE)
    x, mean, inv = inputs(2, 9, 11)
    jx, jmean, jinv = (jax.device_put(jnp.asarray(a), gpu)
                       for a in (x, mean, inv))
    y, _ = p(jx, jmean, jinv)
    ref_y, _ = p(x, mean, inv, backend='reference')
    got = jnp.from_dlpack(y)
    np.testing.assert_array_equal(np.asarray(got), ref_y.numpy())


if __name__ == '__main__':
    from pipegpu_testing import run_as_script
    run_as_script(globals())
