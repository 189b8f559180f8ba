"""``make serve-model`` without a model: its settings, its guards, what it tells students, and the key never shown.

The server itself is started by ``make hub-test`` (tests/test_hub.py, marker ``hub``); here
:func:`course_lib.local_model.start_server` is replaced, so these run offline in ``make test``.
"""

import socket

import pytest

from course_lib import serve_model
from course_lib.live import LiveSettings, mask_secrets
from course_lib.local_model import SMOLLM2, LocalModelError, LocalServer, LocalServerSettings
from course_lib.serve_model import (
    KEY_VAR,
    MIN_KEY_CHARS,
    announcement,
    serve_settings,
    start_shared_server,
    student_environment,
)

KEY = "k3y-for-the-class-0123456789"


def settings(**env: str):
    return serve_settings({KEY_VAR: KEY, "COURSE_LOCAL_THREADS": "1", **env})


@pytest.mark.parametrize(
    ("env", "names"),
    [
        ({KEY_VAR: ""}, KEY_VAR),
        ({KEY_VAR: "short"}, KEY_VAR),
        ({KEY_VAR: f" {KEY} "}, KEY_VAR),
        ({"COURSE_SERVE_PORT": "99999"}, "COURSE_SERVE_PORT (1 to 65535)"),
        ({"COURSE_SERVE_PORT": "eighty"}, "COURSE_SERVE_PORT"),
        ({"COURSE_SERVE_PARALLEL": "0"}, "COURSE_SERVE_PARALLEL (1 to 32)"),
        ({"COURSE_SERVE_HOST": "localhost"}, "COURSE_SERVE_HOST"),
        ({"COURSE_LOCAL_THREADS": "many"}, "COURSE_LOCAL_THREADS"),
    ],
)
def test_each_bad_setting_is_refused_with_the_variable_named(env, names):
    with pytest.raises(LocalModelError, match=names.replace("(", r"\(").replace(")", r"\)")) as error:
        settings(**env)
    assert KEY not in str(error.value)


def test_the_defaults_are_loopback_three_slots_and_the_key_is_kept_secret():
    chosen = settings()
    assert (chosen.host, chosen.port, chosen.parallel, chosen.threads) == ("127.0.0.1", 8081, 3, 1)
    assert KEY not in repr(chosen) and KEY not in str(chosen)
    assert MIN_KEY_CHARS >= 16


def test_students_get_an_openai_endpoint_the_course_accepts_as_it_stands():
    env = student_environment(settings(COURSE_SERVE_HOST="0.0.0.0", COURSE_SERVE_PORT="9000"), host="model.lan")
    assert env["COURSE_LLM"] == "openai" and env["OPENAI_API_KEY"] == KEY and env["OPENAI_MODEL"] == SMOLLM2.alias
    assert env["OPENAI_BASE_URL"] == "http://model.lan:9000/v1"
    live = LiveSettings.checked(
        model=env["OPENAI_MODEL"],
        api_key=env["OPENAI_API_KEY"],
        base_url=env["OPENAI_BASE_URL"],
        timeout=float(env["COURSE_LLM_TIMEOUT"]),
        max_retries=int(env["COURSE_LLM_MAX_RETRIES"]),
        max_tokens=int(env["COURSE_LLM_MAX_TOKENS"]),
    )
    assert live.max_tokens == LocalServerSettings(threads=1).max_output and live.max_retries == 0
    assert student_environment(settings(COURSE_SERVE_HOST="0.0.0.0"))["OPENAI_BASE_URL"].startswith("http://127.0.0.1")


def test_the_start_passes_the_address_slots_and_key_to_the_local_backends_server(monkeypatch):
    asked = {}

    def fake_start(server_settings, model, **options):
        asked.update(options, threads=server_settings.threads, model=model)
        return LocalServer("http://127.0.0.1:8081/v1", model, server_settings, "test", 0.5, object())

    monkeypatch.setattr(serve_model, "start_server", fake_start)
    chosen = settings(COURSE_SERVE_PORT=str(_free_port()), COURSE_SERVE_PARALLEL="4")
    server = start_shared_server(chosen)
    assert asked == {
        "host": "127.0.0.1",
        "port": chosen.port,
        "parallel": 4,
        "api_key": KEY,
        "threads": 1,
        "model": SMOLLM2,
    }
    shown = "\n".join(announcement(server, chosen))
    assert KEY not in shown and "OPENAI_API_KEY=" + mask_secrets(KEY, [KEY]) in shown
    assert "4 slots" in shown and "COURSE_LLM_TIMEOUT=180" in shown and "queue" in shown


def test_a_port_in_use_is_named_before_llama_cpp_is_asked(monkeypatch):
    monkeypatch.setattr(serve_model, "start_server", lambda *a, **k: pytest.fail("started on a busy port"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(LocalModelError, match=f"Cannot listen on 127.0.0.1:{port}"):
            start_shared_server(settings(COURSE_SERVE_PORT=str(port)))


def test_main_says_what_broke_and_exits_without_starting(monkeypatch, capsys):
    monkeypatch.setattr(serve_model, "start_server", lambda *a, **k: pytest.fail("started without a key"))
    assert serve_model.main({}) == 2
    assert KEY_VAR in capsys.readouterr().err


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
