"""Live settings: read with MAF's loader from the environment and .env, refused when blank, key kept secret."""

import pytest
from agent_framework import Message, SecretString

from course_lib.clients import make_chat_client
from course_lib.live import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_MAX_TOKENS,
    DEFAULT_TIMEOUT,
    ENDPOINT_EXAMPLES,
    FIELD_VARS,
    RESTART_MENU,
    ROLES,
    Backends,
    LiveSettings,
    LiveSettingsError,
    load_course_settings,
    refused_settings_words,
    stays_offline,
)
from course_lib.live_client import LiveChatClient
from course_lib.loop_demos import OfflineDraftClient, OfflineJudgeClient
from course_lib.memory_models import OfflineAssistantClient, OfflineSummarizerClient, OfflineWriterClient

KEY = "sk-live-secret-value"
LIVE_VARS = (
    "OPENAI_MODEL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "COURSE_LLM_TIMEOUT",
    "COURSE_LLM_MAX_RETRIES",
    "COURSE_LLM_MAX_TOKENS",
)


@pytest.fixture
def live(monkeypatch):
    for name in LIVE_VARS + tuple(f"COURSE_{r.upper()}_MODEL" for r in ROLES):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COURSE_LLM", "openai")
    monkeypatch.setenv("OPENAI_MODEL", "gpt-test")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    return monkeypatch


def test_every_role_has_an_offline_model_by_default(monkeypatch):
    monkeypatch.delenv("COURSE_LLM", raising=False)
    kinds = {role: type(make_chat_client(role)) for role in ROLES}
    assert kinds == {
        "assistant": OfflineAssistantClient,
        "writer": OfflineWriterClient,
        "reader": OfflineAssistantClient,
        "summarizer": OfflineSummarizerClient,
        "worker": OfflineDraftClient,
        "judge": OfflineJudgeClient,
    }
    assert make_chat_client("reader", resolution="earliest").resolution == "earliest"
    assert make_chat_client("summarizer", summary_budget=99).budget == 99
    with pytest.raises(ValueError, match="Unknown model role 'numbering'"):
        make_chat_client("numbering")


def test_live_settings_have_documented_bounds_and_per_role_models(live):
    live.setenv("COURSE_WRITER_MODEL", "gpt-small")
    settings = load_course_settings().live
    assert (settings.timeout, settings.max_retries) == (DEFAULT_TIMEOUT, DEFAULT_MAX_RETRIES)
    assert DEFAULT_TIMEOUT * (DEFAULT_MAX_RETRIES + 1) <= 65  # a dead endpoint costs about a minute at most
    assert settings.model_for("writer") == "gpt-small" and settings.model_for("judge") == "gpt-test"
    clients = {role: make_chat_client(role) for role in ROLES}
    assert all(isinstance(c, LiveChatClient) for c in clients.values())
    assert clients["writer"].model == "gpt-small" and clients["assistant"].model == "gpt-test"
    sdk = clients["judge"].client
    assert (sdk.timeout.read, sdk.max_retries) == (DEFAULT_TIMEOUT, DEFAULT_MAX_RETRIES)


@pytest.mark.parametrize(
    ("name", "value", "reason"),
    [
        ("OPENAI_API_KEY", "   ", "OPENAI_API_KEY is blank"),
        ("OPENAI_API_KEY", "", "OPENAI_API_KEY is blank"),
        ("OPENAI_API_KEY", KEY + "\n", "OPENAI_API_KEY has leading or trailing spaces"),
        ("OPENAI_MODEL", " ", "OPENAI_MODEL is blank"),
        ("COURSE_JUDGE_MODEL", "", "COURSE_JUDGE_MODEL is blank"),
        ("OPENAI_BASE_URL", "localhost:11434/v1", "is not an http(s) URL with a host"),
        ("OPENAI_BASE_URL", " ", "OPENAI_BASE_URL is blank"),
        ("COURSE_LLM_TIMEOUT", "soon", "COURSE_LLM_TIMEOUT='soon' is not a number"),
        ("COURSE_LLM_TIMEOUT", "0", "COURSE_LLM_TIMEOUT: Input should be greater than 0"),
        ("COURSE_LLM_MAX_RETRIES", "50", "COURSE_LLM_MAX_RETRIES: Input should be less than or equal to 5"),
        ("COURSE_LLM", "opnai", "COURSE_LLM='opnai' is not supported"),
        ("COURSE_LLM", "", "COURSE_LLM is blank"),
        ("COURSE_LLM", "  ", "COURSE_LLM is blank"),
        ("COURSE_LLM_MAX_TOKENS", "many", "COURSE_LLM_MAX_TOKENS='many' is not a whole number"),
        ("COURSE_LLM_MAX_TOKENS", "0", "COURSE_LLM_MAX_TOKENS: Input should be greater than or equal to 16"),
        ("COURSE_LLM_MAX_TOKENS", "100000", "COURSE_LLM_MAX_TOKENS: Input should be less than or equal to 32768"),
    ],
)
def test_bad_settings_are_refused_by_name_and_never_echo_the_key(live, name, value, reason):
    live.setenv(name, value)
    with pytest.raises(LiveSettingsError) as raised:
        make_chat_client("writer")
    assert reason in str(raised.value) and KEY not in str(raised.value)


def test_the_key_is_a_secret_in_every_repr(live):
    settings = load_course_settings().live
    assert isinstance(settings.api_key, SecretString)
    for text in (repr(settings), str(settings), repr(load_course_settings()), repr(make_chat_client("writer"))):
        assert KEY not in text
    assert "**********" in repr(settings)
    assert LiveSettings(model="m", api_key=KEY).api_key.get_secret_value() == KEY


def test_dotenv_is_read_and_the_environment_wins(live, tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_text(
        "COURSE_LLM=openai\nOPENAI_MODEL=from-dotenv\nCOURSE_LLM_TIMEOUT=12\nOPENAI_API_KEY=dotenv-key\n"
    )
    live.delenv("OPENAI_MODEL")
    settings = load_course_settings(env_file).live
    assert (settings.model, settings.timeout, settings.api_key.get_secret_value()) == ("from-dotenv", 12.0, KEY)
    live.setenv("COURSE_LLM", "offline")
    assert load_course_settings(env_file).live is None


def test_the_backend_table_names_every_role_and_the_offline_numbering_llm(live):
    rows = load_course_settings().table()
    assert [r["name"] for r in rows] == [*ROLES, "numbering"]
    assert {r["backend"] for r in rows[:-1]} == {"openai"} and rows[-1]["backend"] == "offline (always)"
    assert all(KEY not in str(r) for r in rows)


def test_only_the_numbering_model_stays_offline_whatever_course_llm_says(live):
    live_rows = load_course_settings()
    assert stays_offline(live_rows) == ["numbering"]  # every role is live here
    assert stays_offline(Backends(backend="offline")) == [*ROLES, "numbering"]  # offline: every row is, in this one
    assert stays_offline(Backends(backend="offline"), live_rows) == ["numbering"]


def test_a_blank_backend_in_the_shell_does_not_hide_the_one_in_dotenv(live, tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_text("COURSE_LLM=openai\nOPENAI_MODEL=m\nOPENAI_API_KEY=k\n")
    live.setenv("COURSE_LLM", "")
    with pytest.raises(LiveSettingsError, match="COURSE_LLM is blank in the shell; give it a value"):
        load_course_settings(env_file)
    live.delenv("COURSE_LLM")
    env_file.write_text("COURSE_LLM=\n")
    with pytest.raises(LiveSettingsError, match="COURSE_LLM is blank"):
        load_course_settings(env_file)


def test_a_blank_backend_is_said_where_it_came_from(live, tmp_path):
    """Lesson 00's walk: a blank COURSE_LLM= in .env was told "a blank value in the shell would otherwise hide the
    one in .env", which blames the shell; the message names the place the blank came from."""
    env_file = tmp_path / ".env"
    env_file.write_text("COURSE_LLM=\n")
    live.delenv("COURSE_LLM")
    with pytest.raises(LiveSettingsError) as raised:
        load_course_settings(env_file)
    said = str(raised.value)
    assert said.startswith("COURSE_LLM is blank in .env;") and "delete its line" in said and "shell" not in said
    live.setenv("COURSE_LLM", " ")
    with pytest.raises(LiveSettingsError) as raised:
        load_course_settings(env_file)
    assert str(raised.value).startswith("COURSE_LLM is blank in the shell;") and "unset it there" in str(raised.value)


def test_a_refusal_says_to_restart_by_the_menu_path():
    """Lesson 00's walk: "restart the kernel", then re-running one cell, failed on a name an earlier cell defined;
    the message names the menu item that restarts and runs every cell."""
    said = refused_settings_words(LiveSettingsError("OPENAI_MODEL is blank"))
    assert said.splitlines()[1] == "OPENAI_MODEL is blank"
    assert said.endswith("then choose Kernel > Restart Kernel and Run All Cells.") and RESTART_MENU in said


def test_dotenv_values_are_read_literally_and_a_reference_is_refused(live, tmp_path, monkeypatch):
    env_file = tmp_path / ".env"
    live.delenv("OPENAI_API_KEY")
    monkeypatch.setenv("HOME", "/home/student")
    env_file.write_text("COURSE_LLM=openai\nOPENAI_API_KEY=sk-${HOME}-x\n")
    with pytest.raises(LiveSettingsError) as raised:
        load_course_settings(env_file)
    assert "OPENAI_API_KEY in .env holds a ${...} reference" in str(raised.value)
    assert "/home/student" not in str(raised.value) and "sk-" not in str(raised.value)
    env_file.write_text("COURSE_LLM=openai\nOPENAI_API_KEY='sk-$HOME-literal'\n")
    assert load_course_settings(env_file).live.api_key.get_secret_value() == "sk-$HOME-literal"


def test_a_dotenv_saved_with_a_byte_order_mark_is_read_whole(live, tmp_path):
    env_file = tmp_path / ".env"
    live.delenv("COURSE_LLM")
    env_file.write_bytes("\ufeffCOURSE_LLM=openai\nOPENAI_MODEL=m\nOPENAI_API_KEY=k\n".encode())
    assert load_course_settings(env_file).backend == "openai"


def test_the_output_cap_is_a_setting_sent_in_the_field_the_endpoint_reads(live):
    assert load_course_settings().live.max_tokens == DEFAULT_MAX_TOKENS == 512
    live.setenv("COURSE_LLM_MAX_TOKENS", "256")
    openai_itself = make_chat_client("writer")
    assert openai_itself.settings.max_tokens == 256
    prepared = openai_itself._prepare_options([Message("user", ["hi"])], {})
    assert prepared["max_completion_tokens"] == 256 and "max_tokens" not in prepared  # OpenAI's own API
    live.setenv("OPENAI_BASE_URL", "http://localhost:11434/v1")
    prepared = make_chat_client("writer")._prepare_options([Message("user", ["hi"])], {"max_tokens": 1000})
    assert prepared["max_tokens"] == 256 and "max_completion_tokens" not in prepared  # compatible servers


def test_masking_covers_every_run_of_the_key_and_nothing_else():
    from course_lib.live import mask_secrets

    key = "sk-proj-abcdefghijklmnop"
    assert mask_secrets(f"a {key} b", [key]) == "a ********** b"
    assert mask_secrets(f"cut: {key[:8]}", [key]) == "cut: **********"  # a prefix of 8
    assert mask_secrets(f"{key[-8:]} end", [key]) == "********** end"  # a suffix of 8
    assert mask_secrets(f"mid {key[5:15]} mid", [key]) == "mid ********** mid"  # a middle run
    assert mask_secrets(f"short {key[:7]} {key[-7:]}", [key]) == f"short {key[:7]} {key[-7:]}"  # under 8: kept
    assert mask_secrets("ollama said ollama", ["ollama"]) == "********** said **********"  # a short key, whole
    assert mask_secrets("nothing here", [key, ""]) == "nothing here"


def test_the_worst_case_wait_is_said_as_the_sum_it_is():
    """Lesson 00 prints the default bound with its parts: the attempts and the SDK's wait before each retry."""
    times = "\N{MULTIPLICATION SIGN}"
    defaults = LiveSettings(model="m", api_key="k")
    assert defaults.worst_case_words() == f"2 {times} 30 s + the 0.5 s the SDK waits before the retry"
    assert defaults.worst_case_wait == 2 * 30 + 0.5
    two = LiveSettings(model="m", api_key="k", timeout=20, max_retries=2)
    assert two.worst_case_words() == f"3 {times} 20 s + the 0.5 s and 1 s the SDK waits before the retries"
    assert LiveSettings(model="m", api_key="k", max_retries=0).worst_case_words() == f"1 {times} 30 s"


def test_every_example_endpoint_in_lesson_00_is_a_url_the_settings_accept():
    """The table a student copies from: each base URL passes the course's own check (``<resource>`` filled in)."""
    assert ENDPOINT_EXAMPLES[0]["server"] == "OpenAI"  # the one that leaves the URL unset
    for row in ENDPOINT_EXAMPLES[1:]:
        url = row[FIELD_VARS["base_url"]].replace("<resource>", "example")
        assert LiveSettings.checked(model="m", api_key="k", base_url=url).base_url == url
    assert all(set(row) == {"server", *FIELD_VARS.values()} for row in ENDPOINT_EXAMPLES)


def test_the_models_are_said_in_words_with_no_class_name():
    from course_lib.clients import models_in_words
    from course_lib.live import Backends

    offline = models_in_words(Backends(backend="offline"))
    assert offline.startswith("The models are the course's offline models") and "Client" not in offline
    assert "COURSE_LLM=local" in models_in_words(Backends(backend="local"))


@pytest.mark.parametrize(
    ("values", "reason"),
    [
        ({"model": " ", "api_key": KEY}, "OPENAI_MODEL is blank"),
        ({"model": "m", "api_key": "   "}, "OPENAI_API_KEY is blank"),
        ({"model": "m", "api_key": KEY, "base_url": "localhost:11434/v1"}, "is not an http(s) URL with a host"),
        ({"model": "m", "api_key": KEY, "timeout": 0}, "COURSE_LLM_TIMEOUT: Input should be greater than 0"),
    ],
)
def test_the_constructor_a_student_types_refuses_by_name_not_with_a_pydantic_dump(values, reason):
    """Lesson 00 promises a bad setting is refused by name: ``LiveSettings(...)`` itself, not only ``.checked``
    (issue 32: the constructor showed pydantic's "1 validation error for LiveSettings" and its help link)."""
    with pytest.raises(LiveSettingsError) as raised:
        LiveSettings(**values)
    text = str(raised.value)
    assert text.startswith("Live settings refused: ") and reason in text
    assert "validation error" not in text and "pydantic" not in text and KEY not in text


def test_the_placeholder_key_of_env_example_is_refused_by_name(live, tmp_path):
    """A copied ``.env.example`` left as it is names its placeholder key, not a 401 from afar (issue 32)."""
    from dotenv import dotenv_values

    from course_lib.environment import optional_course_file
    from course_lib.live import PLACEHOLDER_API_KEY

    example = dotenv_values(optional_course_file(".env.example"))
    assert example["OPENAI_API_KEY"] == PLACEHOLDER_API_KEY
    live.delenv("OPENAI_API_KEY")
    env_file = tmp_path / ".env"
    env_file.write_text(f"COURSE_LLM=openai\nOPENAI_MODEL=m\nOPENAI_API_KEY={PLACEHOLDER_API_KEY}\n")
    with pytest.raises(LiveSettingsError) as raised:
        load_course_settings(env_file)
    assert "OPENAI_API_KEY is still the placeholder from .env.example" in str(raised.value)
    assert LiveSettings(model="m", api_key="replace-me-with-mine").api_key  # only the placeholder itself


@pytest.mark.parametrize(
    ("value", "hint"),
    [
        ("ollama", "For Ollama use COURSE_LLM=openai with OPENAI_BASE_URL=http://localhost:11434/v1"),
        ("LM Studio", "For LM Studio use COURSE_LLM=openai with OPENAI_BASE_URL=http://localhost:1234/v1"),
        ("llama.cpp", "For llama.cpp server use COURSE_LLM=openai with OPENAI_BASE_URL=http://localhost:8080/v1"),
    ],
)
def test_a_backend_naming_an_openai_compatible_server_is_told_how_to_reach_it(live, value, hint):
    live.setenv("COURSE_LLM", value)
    with pytest.raises(LiveSettingsError) as raised:
        make_chat_client("writer")
    assert f"COURSE_LLM={value!r} is not supported" in str(raised.value) and hint in str(raised.value)


def test_a_misspelt_backend_gets_no_server_hint(live):
    live.setenv("COURSE_LLM", "opnai")
    with pytest.raises(LiveSettingsError) as raised:
        make_chat_client("writer")
    assert "For " not in str(raised.value)


def test_an_unreachable_endpoint_points_at_the_network_when_no_base_url_is_set():
    """Lesson 00's re-walk: with OPENAI_BASE_URL unset (OpenAI's own endpoint), "Is the server running? Check
    OPENAI_BASE_URL" sent the student to a setting OpenAI users leave unset; the network is what to check."""
    import httpx2
    import openai

    from course_lib.live_client import explain

    error = openai.APIConnectionError(request=httpx2.Request("POST", "https://api.openai.com/v1/chat/completions"))
    _, hint, kind = explain(error, LiveSettings(model="m", api_key="k"))
    assert kind == "unreachable" and "network" in hint and "OPENAI_BASE_URL" not in hint.split("(")[0]
    _, hint, _ = explain(error, LiveSettings(model="m", api_key="k", base_url="http://127.0.0.1:9/v1"))
    assert "Is the server running?" in hint and "OPENAI_BASE_URL" in hint


def test_lesson_00_exercise_2_counts_the_roles_that_follow_openai_model():
    """Lesson 00's exercise 2 (fourth walk: the old question was a look-up): with COURSE_WRITER_MODEL=gpt-4o, five
    rows say gpt-4o-mini; the writer has its own model, and the numbering row, which no setting switches, none."""
    gpt = Backends(
        backend="openai", live=LiveSettings(model="gpt-4o-mini", api_key="k", role_models={"writer": "gpt-4o"})
    )
    other = [row["name"] for row in gpt.table() if row["model"] != "gpt-4o-mini"]
    assert other == ["writer", "numbering"] and stays_offline(gpt) == ["numbering"]
