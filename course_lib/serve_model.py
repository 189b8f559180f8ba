"""``make serve-model``: the course's local model served on its own, for a whole class, behind a key.

With ``COURSE_LLM=local`` every student's kernel starts its own llama.cpp server: a model in memory and its threads
per kernel, on a machine the class shares. Here one server runs instead, started by the instructor with the local
backend's own code (:func:`course_lib.local_model.start_server`: the model file checked by size and SHA-256, the
start bounded, each failure a :class:`~course_lib.local_model.LocalModelError`), on the address and port the
instructor chooses, with several slots (llama.cpp's ``n_parallel``: that many answers are computed at once, each
slot with its own context) and an API key every request must carry. Students reach it as any OpenAI-compatible
endpoint: :func:`student_environment` is what the hub sets for every user (``COURSE_LLM=openai``, ``OPENAI_*``).

When the class asks more than the slots serve, llama.cpp queues the request until a slot frees; the student's call
waits in that queue within its own deadline (``COURSE_LLM_TIMEOUT`` per attempt, :attr:`LiveSettings.deadline`
for the call), then fails with a timeout that names the variable. The key is read from the environment and never
printed: every line this module shows passes :func:`course_lib.live.mask_secrets`.
"""

from __future__ import annotations

import ipaddress
import os
import signal
import socket
import sys
import threading
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from .frames import count_noun
from .live import FIELD_VARS, MAX_TOKENS_VAR, MIN_SECRET_RUN, RETRIES_VAR, TIMEOUT_VAR, mask_secrets
from .local_model import (
    SMOLLM2,
    THREADS_VAR,
    LocalModelError,
    LocalServer,
    LocalServerSettings,
    start_server,
    threads_setting,
)

__all__ = [
    "HOST_VAR",
    "KEY_HINT",
    "KEY_VAR",
    "MIN_KEY_CHARS",
    "PARALLEL_VAR",
    "PORT_VAR",
    "STUDENT_TIMEOUT",
    "SharedServerSettings",
    "announcement",
    "main",
    "serve_settings",
    "start_shared_server",
    "student_environment",
]

HOST_VAR, PORT_VAR = "COURSE_SERVE_HOST", "COURSE_SERVE_PORT"
PARALLEL_VAR, KEY_VAR = "COURSE_SERVE_PARALLEL", "COURSE_SERVE_KEY"
MIN_KEY_CHARS = max(16, MIN_SECRET_RUN)
"""A shorter key is refused: it would be guessable, and the course masks only runs of MIN_SECRET_RUN or more."""
STUDENT_TIMEOUT = 180.0
"""Seconds one student's request may wait (``COURSE_LLM_TIMEOUT``), queue included: three capped answers in a row
on a busy 2-core machine. The students' retries are off: a retry only joins the back of the same queue."""
KEY_HINT = "python3 -c 'import secrets; print(secrets.token_urlsafe(24))'"


class SharedServerSettings(BaseModel):
    """Where the class's server listens, how many answers it computes at once, and the key it asks for."""

    model_config = ConfigDict(frozen=True)

    host: str = "127.0.0.1"
    port: int = Field(default=8081, ge=1, le=65535)
    parallel: int = Field(default=3, ge=1, le=32)
    threads: int = Field(ge=1, le=64)
    api_key: SecretStr = Field(repr=False)

    def base_url(self, host: str | None = None) -> str:
        """The OpenAI base URL students use (``host``: the name they reach it by, if not the bound address)."""
        shown = host or ("127.0.0.1" if self.host in ("0.0.0.0", "::") else self.host)
        return f"http://{shown}:{self.port}/v1"


def serve_settings(environ: Mapping[str, str] | None = None) -> SharedServerSettings:
    """The ``COURSE_SERVE_*`` variables, checked: a missing key or a bad value names the variable and the rule."""
    environ = os.environ if environ is None else environ
    key = environ.get(KEY_VAR, "")
    if len(key.strip()) < MIN_KEY_CHARS or key != key.strip():
        raise LocalModelError(
            f"{KEY_VAR} must be set to a key of {MIN_KEY_CHARS} characters or more, with no surrounding spaces "
            f"(make one with: {KEY_HINT}); every student's request must carry it."
        )
    host = environ.get(HOST_VAR, "127.0.0.1")
    try:
        ipaddress.ip_address(host)
    except ValueError:
        raise LocalModelError(
            f"{HOST_VAR}={host!r} is not an IP address (127.0.0.1, 0.0.0.0 or one of this machine's)."
        ) from None
    values = {name: environ[var] for name, var in (("port", PORT_VAR), ("parallel", PARALLEL_VAR)) if var in environ}
    threads = threads_setting(environ.get(THREADS_VAR))
    try:
        return SharedServerSettings.model_validate({**values, "host": host, "threads": threads, "api_key": key})
    except ValidationError as error:
        names = {"port": f"{PORT_VAR} (1 to 65535)", "parallel": f"{PARALLEL_VAR} (1 to 32)"}
        broken = ", ".join(names.get(str(e["loc"][0]), str(e["loc"][0])) for e in error.errors())
        raise LocalModelError(f"Out of range or not a whole number: {broken}.") from None


def _check_port_free(host: str, port: int) -> None:
    """Bind the address once before llama.cpp does: its own error says only "Failed to init server"."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((host, port))
        except OSError as error:
            raise LocalModelError(
                f"Cannot listen on {host}:{port} ({error.strerror}): another server uses the port, or the address "
                f"is not this machine's; choose another with {PORT_VAR} or {HOST_VAR}."
            ) from None


def start_shared_server(settings: SharedServerSettings) -> LocalServer:
    """The class's server: the local backend's guards, the instructor's address, ``parallel`` slots and the key."""
    _check_port_free(settings.host, settings.port)
    return start_server(
        LocalServerSettings(threads=settings.threads),
        SMOLLM2,
        host=settings.host,
        port=settings.port,
        parallel=settings.parallel,
        api_key=settings.api_key.get_secret_value(),
    )


def student_environment(settings: SharedServerSettings, host: str | None = None) -> dict[str, str]:
    """What the hub sets for every user so their kernels reach this server (``host``: the name students use)."""
    return {
        "COURSE_LLM": "openai",
        FIELD_VARS["base_url"]: settings.base_url(host),
        FIELD_VARS["model"]: SMOLLM2.alias,
        FIELD_VARS["api_key"]: settings.api_key.get_secret_value(),
        TIMEOUT_VAR: f"{STUDENT_TIMEOUT:g}",
        RETRIES_VAR: "0",
        MAX_TOKENS_VAR: str(LocalServerSettings(threads=1).max_output),  # the server's cap: none cut early
    }


def announcement(server: LocalServer, settings: SharedServerSettings) -> list[str]:
    """What ``make serve-model`` prints once the model answers: where, what, how many at once, students' settings."""
    key = settings.api_key.get_secret_value()
    lines = [
        f"Serving {server.model.alias} (xllamacpp {server.server_version}) at "
        f"{settings.base_url()} with {count_noun(settings.parallel, 'slot')}, "
        f"{count_noun(settings.threads, 'thread')}; loaded in {server.load_seconds:g} s.",
        f"A request beyond {settings.parallel} at once waits in llama.cpp's queue, within the student's deadline "
        f"({TIMEOUT_VAR}={STUDENT_TIMEOUT:g} s per attempt).",
        "Every user's environment (the hub's config, hub/jupyterhub_config.py, sets it from these variables):",
        *(f"  {name}={value}" for name, value in student_environment(settings).items()),
        "Stop with Ctrl-C.",
    ]
    return [mask_secrets(line, [key]) for line in lines]


def main(environ: Mapping[str, str] | None = None) -> int:
    """Start the class's server, say where it is (the key masked), and serve until Ctrl-C or SIGTERM."""
    try:
        settings = serve_settings(environ)
        server = start_shared_server(settings)
    except LocalModelError as error:
        print(error, file=sys.stderr)
        return 2
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    print("\n".join(announcement(server, settings)), flush=True)
    stop.wait()
    server.stop()
    print("Stopped.", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
