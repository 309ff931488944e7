"""The one long-running `pareval serve` child and its JSON Lines conversation.

Synchronous and thread-safe on purpose: requests are short, the same object is used before an eval
starts (to read the plan) and from Inspect's event loop (through a worker thread, see
`controller.py`), and nothing here depends on which async backend Inspect runs on.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import threading
from collections import deque
from typing import Any, Sequence

__all__ = ["ParevalError", "ParevalProcess", "resolve_binary"]


class ParevalError(RuntimeError):
    """pareval could not be started, died, or answered a request with an error."""


_EOF = object()


def resolve_binary(binary: str | None = None) -> str:
    """The pareval executable: `binary`, else $PAREVAL_BIN, else `pareval` on PATH."""
    candidate = binary or os.environ.get("PAREVAL_BIN") or "pareval"
    found = shutil.which(candidate)
    if found is None:
        where = (
            "the binary given"
            if binary
            else ("$PAREVAL_BIN" if os.environ.get("PAREVAL_BIN") else "PATH")
        )
        # shutil.which passes over a file that is there but may not be run: say which it is.
        if os.path.isfile(candidate) and not os.access(candidate, os.X_OK):
            raise ParevalError(
                f"pareval executable {candidate!r} (from {where}) is a file that may not be run: "
                f"make it executable (chmod +x {candidate}) or point to the pareval binary"
            )
        raise ParevalError(
            f"pareval executable {candidate!r} not found (looked up from {where}); "
            "set PAREVAL_BIN to the pareval binary or put `pareval` on PATH"
        )
    return found


class ParevalProcess:
    """A `pareval serve …` child: one JSON request per line in, exactly one JSON reply per line out.

    The child is started on the first request (or by `start()`), and `close()` ends it the way the
    protocol asks: stdin closed, then a wait (terminate, then kill, only if it does not exit).
    """

    def __init__(self, argv: Sequence[str], *, timeout: float | None = 120.0) -> None:
        self.argv = list(argv)
        self.timeout = timeout
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[object] = queue.Queue()
        self._stderr: deque[str] = deque(maxlen=40)
        self._lock = threading.Lock()
        self._closed = False
        self._dead: str | None = None

    # -- lifecycle -------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def closed(self) -> bool:
        return self._closed

    def start(self) -> None:
        with self._lock:
            self._start_locked()

    def _start_locked(self) -> None:
        if self._proc is not None:
            return
        if self._closed:
            raise ParevalError("the pareval process was already closed")
        try:
            self._proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                bufsize=1,
            )
        except OSError as ex:
            raise ParevalError(f"cannot start {self._command()}: {ex}") from ex
        threading.Thread(
            target=self._pump, args=(self._proc.stdout, self._lines), daemon=True
        ).start()
        threading.Thread(
            target=self._pump_stderr, args=(self._proc.stderr,), daemon=True
        ).start()

    @staticmethod
    def _pump(stream: Any, lines: queue.Queue[object]) -> None:
        try:
            for line in stream:
                lines.put(line)
        except (OSError, ValueError):
            pass
        finally:
            lines.put(_EOF)

    def _pump_stderr(self, stream: Any) -> None:
        try:
            for line in stream:
                self._stderr.append(line.rstrip("\n"))
        except (OSError, ValueError):
            pass

    def close(self, timeout: float = 10.0) -> int | None:
        """Close stdin and wait for the child (terminate, then kill, past `timeout`). Idempotent."""
        with self._lock:
            self._closed = True
            proc = self._proc
            if proc is None:
                return None
            if proc.stdin is not None and not proc.stdin.closed:
                try:
                    proc.stdin.close()
                except OSError:
                    pass
            try:
                return proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.terminate()
                try:
                    return proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    return proc.wait()

    # -- requests --------------------------------------------------------------------------------

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send one request and return its reply; raise ParevalError if the child is gone or says no."""
        reply = self.exchange(message)
        if reply.get("ok") is not True:
            raise ParevalError(
                f"pareval refused {json.dumps(message)}: {reply.get('error', reply)}"
            )
        return reply

    def exchange(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send one request and return its reply as it is (an `ok: false` reply included)."""
        with self._lock:
            if self._dead is not None:
                raise ParevalError(self._dead)
            self._start_locked()
            assert self._proc is not None and self._proc.stdin is not None
            text = json.dumps(message, separators=(",", ":"))
            try:
                self._proc.stdin.write(text + "\n")
                self._proc.stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                raise self._died(f"while sending {text}") from None
            try:
                line = self._lines.get(timeout=self.timeout)
            except queue.Empty:
                self._dead = (
                    f"{self._command()} sent no reply to {text} within {self.timeout:g} s"
                )
                raise ParevalError(self._dead) from None
            if line is _EOF:
                raise self._died(f"before answering {text}")
            assert isinstance(line, str)
            try:
                reply = json.loads(line)
            except json.JSONDecodeError:
                self._dead = (
                    f"{self._command()} answered {text} with a line that is not JSON: "
                    f"{line.rstrip()!r}"
                )
                raise ParevalError(self._dead) from None
            if not isinstance(reply, dict):
                self._dead = f"{self._command()} answered {text} with {line.rstrip()!r}, not an object"
                raise ParevalError(self._dead)
            return reply

    def _died(self, when: str) -> ParevalError:
        assert self._proc is not None
        try:
            code = self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        # give the stderr pump a moment to read the last lines
        threading.Event().wait(0.05)
        stderr = "\n".join(self._stderr).strip()
        self._dead = (
            f"{self._command()} exited"
            + (f" with code {code}" if code is not None else "")
            + f" {when}"
            + (f"; its stderr:\n{stderr}" if stderr else " (nothing on stderr)")
        )
        return ParevalError(self._dead)

    def _command(self) -> str:
        return "`" + " ".join(self.argv[:2]) + "`" if self.argv else "pareval"
