"""Wall time of whole `pipec run` processes on examples/scale.pipe: cold
(empty kernel cache: NVRTC compiles) and warm (kernels from the disk cache),
with pipec's own phase times. Run on the GPU machine by bench/run.sh."""
import json
import os
import subprocess
import sys
import tempfile
import time

pipec, npy = sys.argv[1], sys.argv[2]
work = tempfile.mkdtemp()
cache = os.path.join(work, "cache")
subprocess.run([npy, "random", f"{work}/img.npy", "u8", "1,224,224", "--seed", "1"], check=True)
subprocess.run([npy, "random", f"{work}/g.npy", "f32", "", "--range", "0.8,1.2"], check=True)
cmd = [pipec, "run", "examples/scale.pipe", f"--input=images={work}/img.npy",
       f"--input=gain={work}/g.npy", f"--output={work}/out", "--time-phases"]
env = dict(os.environ, PIPE_KERNEL_CACHE_DIR=cache)


def run():
    t = time.perf_counter()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    wall = (time.perf_counter() - t) * 1e3
    phases = [l for l in p.stderr.splitlines() if l.startswith("pipec: time:")]
    return wall, phases[-1] if phases else ""


for label in ["cold (empty cache)"] + ["warm (disk cache)"] * 5:
    if label.startswith("cold"):
        subprocess.run(["rm", "-rf", cache])
    wall, phases = run()
    print(json.dumps({"case": "pipec run startup", "impl": label, "ms": round(wall, 2),
                      "phases": phases}), flush=True)
