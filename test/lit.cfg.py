# lit configuration for Pipe's FileCheck tests.
import os
import shutil
import subprocess
import sys

import lit.formats

config.name = "Pipe"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".pipe", ".mlir", ".test"]
config.excludes = ["Inputs", "unit", "fuzz", "gen.py", "CMakeLists.txt", "lit.cfg.py",
                   "check_examples.py", "layout_oracle.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.pipe_binary_dir, "test")

tools = {
    "pipec": os.path.join(config.pipe_binary_dir, "tools", "pipec", "pipec"),
    "pipe-opt": os.path.join(config.pipe_binary_dir, "tools", "pipe-opt", "pipe-opt"),
    "pipe-npy": os.path.join(config.pipe_binary_dir, "tools", "pipe-npy", "pipe-npy"),
    "jit_example": os.path.join(config.pipe_binary_dir, "examples", "jit", "jit_example"),
    "aot_example": os.path.join(config.pipe_binary_dir, "examples", "aot", "aot_example"),
    "aot_c_example": os.path.join(config.pipe_binary_dir, "examples", "aot", "aot_c_example"),
}
for name, path in tools.items():
    config.substitutions.append((r"\b%s\b" % name.replace("-", r"\-"), path))
config.substitutions.append(("%examples", os.path.join(config.pipe_source_dir, "examples")))
config.substitutions.append(("%pipe_source", config.pipe_source_dir))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(
    ("%pipe_c_lib", os.path.join(config.pipe_binary_dir, "capi", "libpipe_c.so")))
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
for var in ("CUDA_HOME", "CUDA_PATH", "HOME", "TMPDIR", "LD_LIBRARY_PATH",
            "ASAN_OPTIONS", "UBSAN_OPTIONS"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

# The checking build (scripts/sanitize.sh): ASan's frames are several times
# larger, so the stack that the limits must fit in is the default 8 MiB
# there instead of 1 MiB.
if getattr(config, "pipe_sanitize", ""):
    config.available_features.add("sanitize")
config.substitutions.append(
    ("%limits_stack_kb", "8192" if getattr(config, "pipe_sanitize", "") else "1024"))


def probe(flag):
    result = subprocess.run([tools["pipec"], flag], capture_output=True, text=True)
    return result.returncode == 0, result.stdout.strip()


ok, what = probe("--nvrtc-info")
if ok:
    config.available_features.add("nvrtc")
else:
    lit_config.note("NVRTC unavailable, PTX tests are UNSUPPORTED: " + what)
ok, what = probe("--gpu-info")
if ok:
    config.available_features.add("cuda-gpu")
    lit_config.note("GPU tests run on " + what)
else:
    lit_config.note("GPU tests are reported UNSUPPORTED (skipped): " + what)
try:
    import numpy  # noqa: F401 (the oracles' NumPy, in lit's own Python)
    config.available_features.add("numpy")
except ImportError:
    lit_config.note("NumPy is not installed for " + sys.executable +
                    ": the NumPy oracle tests are UNSUPPORTED")
if shutil.which("dot"):
    config.available_features.add("graphviz")
else:
    lit_config.note("Graphviz's dot is not installed: rendering tests are UNSUPPORTED")
