"""Compiles every ```pipe block of a Markdown file with pipec; exits 1 and
says which failed if any does not compile."""
import os
import re
import subprocess
import sys
import tempfile

pipec, markdown = sys.argv[1], sys.argv[2]
blocks = re.findall(r"```pipe\n(.*?)```", open(markdown).read(), re.S)
failed = 0
for i, block in enumerate(blocks):
    with tempfile.NamedTemporaryFile("w", suffix=".pipe", delete=False) as f:
        f.write(block)
    result = subprocess.run([pipec, f.name, "--emit=fused"], capture_output=True, text=True)
    os.unlink(f.name)
    if result.returncode != 0:
        failed += 1
        print(f"example {i + 1} of {markdown} does not compile:\n{block}\n{result.stderr}")
print(f"{len(blocks) - failed} of {len(blocks)} examples compile")
sys.exit(1 if failed or not blocks else 0)
