#!/usr/bin/env bash
# On the GPU machine: unpacks what scripts/device-bundle.sh packed with xz
# to fit the 64 MiB the device tool carries (each FILE.xz beside where
# FILE goes; done once). Called by device-test.sh and bench/run.sh.
set -euo pipefail
dev=$(cd "$(dirname "$0")/.." && pwd)/.device
find "$dev" -name '*.xz' | while read -r packed; do
  [ -e "${packed%.xz}" ] && continue
  python3 -c 'import lzma, os, shutil, sys
src = sys.argv[1]; dst = src[:-3]
with lzma.open(src) as i, open(dst + ".part", "wb") as o:
    shutil.copyfileobj(i, o)
os.chmod(dst + ".part", 0o755); os.replace(dst + ".part", dst)' "$packed"
done
