"""Formats pipe_bench's JSON lines for the large workloads on one line."""
import json
import sys

parts = []
for line in sys.stdin:
    line = line.strip()
    if not line.startswith("{"):
        continue
    r = json.loads(line)
    if r["case"] in ("ew_chain", "normalize"):
        parts.append("%s %.4f ms %.0f GB/s" % (r["case"], r["ms"], r.get("GBps", 0)))
print("  ".join(parts))
