"""Progress of accel-compile: a status line naming the stages on a terminal; nothing
when stderr is not a terminal or with --quiet."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(ROOT, "examples", "tiny_resnet.onnx")
COMPILE = os.path.join(os.path.dirname(sys.executable), "accel-compile")


def _on_a_terminal(args: list[str]) -> str:
    """What the command writes to its terminal (stdout and stderr on one pty)."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=follower, stderr=follower,
                            env=dict(os.environ, TERM="xterm", COLUMNS="120"))
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # the terminal closed with the process
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=600)
    os.close(leader)
    assert proc.returncode == 0
    return b"".join(chunks).decode(errors="replace")


def test_progress_shows_the_stages_on_a_terminal(tmp_path):
    shown = _on_a_terminal([COMPILE, MODEL, "--target", "npu", "-o", str(tmp_path / "out")])
    assert "accel-compile: " in shown and "stages done" in shown
    assert "accel-compile: wrote" in shown


def test_quiet_on_a_terminal_and_off_a_terminal(tmp_path):
    shown = _on_a_terminal([COMPILE, MODEL, "--target", "npu", "-o", str(tmp_path / "a"), "--quiet"])
    assert "stages done" not in shown and "wrote" not in shown
    piped = subprocess.run([COMPILE, MODEL, "--target", "npu", "-o", str(tmp_path / "b")],
                           capture_output=True, text=True, timeout=600)
    assert piped.returncode == 0 and piped.stderr == ""
    assert piped.stdout.startswith("accel-compile: wrote")
