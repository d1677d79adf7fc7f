"""A load killed with SIGKILL after its Nth committed step, in a child process (small step sizes
so a small folder takes many steps): what the resume tests of ingest and staging start from."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

_SCRIPT = """
import os, signal, sys
from pathlib import Path
from qa_inspect.core.load import ingest, load_runs, loader, stream
loader.STEP_ROWS = int(sys.argv[4])
stream.MIN_BYTES = 0
stream.BATCH = int(sys.argv[5])
commit = ingest.Steps.commit
seen = [0]
def dying(self):
    commit(self)
    seen[0] += 1
    if seen[0] == int(sys.argv[3]):
        os.kill(os.getpid(), signal.SIGKILL)
ingest.Steps.commit = dying
load_runs(Path(sys.argv[1]), Path(sys.argv[2]))
"""


def load_killed(runs: Path, db: Path, steps: int, *, step_rows: int, batch: int) -> None:
    """`load_runs(runs, db)` killed right after its `steps`-th commit; fails if it was not killed."""
    killed = subprocess.run([sys.executable, "-c", _SCRIPT, str(runs), str(db), str(steps), str(step_rows),
                             str(batch)], capture_output=True, check=False)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
