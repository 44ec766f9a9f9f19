"""Reads the JSON lines of pipe_bench, peers_elementwise.py and startup.py
and prints the table for the closing note: each time, its bandwidth as a
fraction of the device-to-device copy, and Pipe's ratio to torch.compile."""
import json
import sys

rows = []
for line in open(sys.argv[1]):
    line = line.strip()
    if line.startswith("{"):
        rows.append(json.loads(line))

copy = max((r["GBps"] for r in rows if r["case"] == "copy"), default=None)
print(f"device-to-device copy: {copy} GB/s (read + write)\n")
cases = []
for r in rows:
    if r["case"] not in cases:
        cases.append(r["case"])
for case in cases:
    print(f"== {case}")
    compiled = next((r["ms"] for r in rows if r["case"] == case and r["impl"] == "torch.compile"), None)
    eager = next((r["ms"] for r in rows if r["case"] == case
                  and r["impl"].startswith("torch eager")), None)
    for r in rows:
        if r["case"] != case:
            continue
        line = f"  {r['impl']:<48} {r['ms']:>10.4f} ms" if r["ms"] else f"  {r['impl']:<48}"
        if "GBps" in r:
            line += f" {r['GBps']:>8.1f} GB/s"
            if copy:
                line += f" ({100 * r['GBps'] / copy:5.1f}% of copy)"
        if "wall_us_per_run" in r:
            line += f"  wall/run {r['wall_us_per_run']:.1f} us"
        if "host_us_per_run" in r:
            line += f" (host {r['host_us_per_run']:.1f} us)"
        if r["impl"].startswith("pipe") and "GBps" in r and compiled:
            line += f"  torch.compile/pipe = {compiled / r['ms']:.2f}x"
        if r["impl"] == "pipe" and eager:
            line += f"  torch eager/pipe = {eager / r['ms']:.1f}x"
        if "fma_floor_ms" in r:
            line += f"  FMA floor {r['fma_floor_ms']:.4f} ms ({r['ms'] / r['fma_floor_ms']:.2f}x of it)"
        if "windows" in r:
            line += f"  windows {r['windows']}"
        for key in ("windows_differing_from_peers_py", "maxdiff_vs_opencv",
                    "fraction_differing_from_opencv", "maxdiff_vs_opencv_f64",
                    "fraction_differing_from_opencv_f64",
                    "opencv_u8_vs_its_f64_maxdiff",
                    "opencv_u8_vs_its_f64_fraction_differing"):
            if key in r:
                line += f"  {key} {r[key]}"
        for key in ("kernels_launched", "kernels_skipped", "control_copies", "waits"):
            if key in r:
                line += f"  {key.replace('_', ' ')} {r[key]}"
        if "phases" in r:
            line += "  " + r["phases"].replace("pipec: time: ", "")
        print(line)

# Timed several times (bench/run.sh python launches the processes three
# times, the host's noise being one-sided): the best and the spread.
for case in cases:
    walls = {}
    for r in rows:
        if r["case"] == case and "wall_us_per_run" in r:
            walls.setdefault(r["impl"], []).append(r["wall_us_per_run"])
    repeated = {impl: w for impl, w in walls.items() if len(w) > 1}
    if not repeated:
        continue
    print(f"== {case}: best of the repeated processes (spread)")
    base = min(walls.get("pipe C++ run()", [0])) or None
    for impl, w in repeated.items():
        line = f"  {impl:<48} {min(w):6.1f} us ({min(w):.1f}-{max(w):.1f}, {len(w)} runs)"
        if base and impl != "pipe C++ run()":
            line += f"  {min(w) - base:+.1f} us against the C++ call's best"
        print(line)
