"""Data-parallel preprocessing under torchrun: one Pipe pipeline per GPU.

    torchrun --nproc-per-node=NGPUS examples/torchrun/train_shards.py [IMAGES.npy]

Each process (rank) takes its part of the data source with
pipegpu.shard_range (the rank and world size of torch.distributed, which
torchrun sets up), runs examples/imagenet_train.pipe on its own GPU over
its part of every global batch, and sets the pipeline's batch_offset to
its part's first sample, so that each sample's random crop and flip are
what one process running the whole batch would draw. No other
coordination: every rank computes its range from the same numbers.

Without torchrun (one process), the script runs the whole source itself.
IMAGES.npy is u8 [T, H, W, 3]; without it, random images stand in.
With PIPE_EXAMPLE_OUT=DIR each rank saves its batches there (the tests
compare them with one process's).
"""
import os
import sys

import numpy as np
import torch
import torch.distributed as dist

import pipegpu

HERE = os.path.dirname(os.path.abspath(__file__))
GLOBAL_BATCH = 64


def main():
    gpus = torch.cuda.device_count()
    world = int(os.environ.get('WORLD_SIZE', 1))
    if 'RANK' in os.environ:
        # NCCL for the trainer's collectives needs a GPU per rank; Pipe
        # itself needs no collective at all.
        dist.init_process_group('nccl' if gpus >= world else 'gloo')
    rank = dist.get_rank() if dist.is_initialized() else 0
    local = int(os.environ.get('LOCAL_RANK', 0))
    if gpus:
        torch.cuda.set_device(local % gpus)
    out_dir = os.environ.get('PIPE_EXAMPLE_OUT')

    if len(sys.argv) > 1:
        source = np.load(sys.argv[1], mmap_mode='r')
    else:
        source = np.random.default_rng(0).integers(
            0, 256, (4 * GLOBAL_BATCH, 256, 320, 3), dtype=np.uint8)

    pipeline = pipegpu.compile_file(
        os.path.join(HERE, '..', 'imagenet_train.pipe'), 'imagenet_train')
    pipeline.seed = 1234  # the same in every rank
    for epoch_batch in range(len(source) // GLOBAL_BATCH):
        # This rank's samples of the global batch.
        begin, count = pipegpu.shard_range(GLOBAL_BATCH)
        first = epoch_batch * GLOBAL_BATCH
        images = torch.from_numpy(
            np.array(source[first + begin:first + begin + count]))
        pipeline.random_run = epoch_batch   # one random run per global batch
        pipeline.batch_offset = begin
        if torch.cuda.is_available():
            # One result: the tensor itself (torch's, as the input is).
            batch = torch.from_dlpack(pipeline(images.cuda(non_blocking=True)))
        else:
            batch = torch.from_numpy(
                pipeline(images.numpy(), backend='reference').numpy())
        # ... the model's forward and backward on `batch` go here ...
        if out_dir:
            np.save(os.path.join(out_dir, f'batch{epoch_batch}_from{begin}.npy'),
                    batch.cpu().numpy())
        print(f'rank {rank}: global batch {epoch_batch}, samples '
              f'{begin}..{begin + count - 1}: {tuple(batch.shape)} '
              f'mean {batch.float().mean().item():.4f}', flush=True)
    if dist.is_initialized():
        dist.destroy_process_group()


if __name__ == '__main__':
    main()
