"""Lesson 00, walk 21 of issue 32 (second helper): sentences over recorded cases are computed, not typed.

* Section 6 said of the middle run's five misses "a proposal with no fact counts as wrong here, since each of these
  messages declares a fact", over a list holding *a question about a key*, which declares none (the model proposed
  ``priority=P1``). :func:`course_lib.qualify.misses_in_words` now groups the misses by what went wrong, each
  heading true of every case under it, computed from the recording.
* Section 3 printed ``model 'llama3.2' at http://localhost:11434/v1``: the model in Python's quotes, the address bare.
  :func:`course_lib.clients.would_call_words` writes both plainly.
* Section 2's table named the local model "started with the first client" before ``make local`` had run; it now
  says it is not installed yet, from the same checks the server's start makes.
"""

from pathlib import Path

import pytest

from course_lib import local_model
from course_lib.clients import make_chat_client, would_call_words
from course_lib.live import (
    LOCAL_MISSING_WORDS,
    LOCAL_MODEL_WORDS,
    Backends,
    LiveSettings,
    LocalRequest,
    load_course_settings,
)


def test_the_writer_sentence_writes_model_and_address_the_same_plain_way():
    live = Backends(backend="openai", live=LiveSettings(model="llama3.2", api_key="k", base_url="http://h:1/v1"))
    said = would_call_words(make_chat_client("writer", backends=live))
    assert said == "The writer would call model llama3.2 at http://h:1/v1."
    assert "'" not in said
    offline = would_call_words(make_chat_client("writer", backends=Backends(backend="offline")))
    assert offline == "The writer would use the course's offline model: nothing is sent."


def _missing(*_args):
    raise local_model.LocalModelError("not installed")


@pytest.mark.parametrize("which", ["server_version", "model_path"])
def test_the_table_says_the_local_model_is_not_installed_when_a_package_is_missing(monkeypatch, which):
    monkeypatch.setattr(local_model, "server_version", lambda: "1.0")
    monkeypatch.setattr(local_model, "model_path", lambda *a: Path("/m.gguf"))
    monkeypatch.setattr(local_model, which, _missing)
    monkeypatch.setenv("COURSE_LLM", "local")
    rows = load_course_settings().table()
    roles = [row for row in rows if row["name"] != "numbering"]
    assert {row["model"] for row in roles} == {LOCAL_MISSING_WORDS}
    assert "run `make local`" in LOCAL_MISSING_WORDS


def test_the_table_says_started_with_the_first_client_when_both_packages_are_there(monkeypatch):
    monkeypatch.setattr(local_model, "server_version", lambda: "1.0")
    monkeypatch.setattr(local_model, "model_path", lambda *a: Path("/m.gguf"))
    rows = Backends(backend="local", local=LocalRequest()).table()
    assert {row["model"] for row in rows if row["name"] != "numbering"} == {LOCAL_MODEL_WORDS}
