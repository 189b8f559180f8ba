"""Live models: the settings that choose and bound them, and the errors that say what broke.

A lesson never builds a live client by hand: :func:`course_lib.clients.make_chat_client` asks
:func:`load_course_settings` which backend to use and, for ``COURSE_LLM=openai`` (any OpenAI-compatible endpoint)
or ``COURSE_LLM=local`` (a small model served on 127.0.0.1, :mod:`course_lib.local_model`), builds a
:class:`~course_lib.live_client.LiveChatClient` -- MAF's own ``OpenAIChatCompletionClient`` with three
additions a course needs (that module loads the openai SDK, so it is imported only when a live client is built):

* **bounded waiting**: one request waits at most ``COURSE_LLM_TIMEOUT`` seconds and is retried at most
  ``COURSE_LLM_MAX_RETRIES`` times (the openai SDK's defaults are 600 s and 2 retries: half an hour for a
  server that accepts the connection and never answers);
* **no silent success**: an empty ``choices`` list, an empty message, a refusal, a non-JSON body, an SSE
  stream cut mid-way or a non-SSE body to a streaming request is an error, not an empty answer;
* **errors that name the cause and the setting to change**, with the key scrubbed out.

Settings are read with MAF's ``load_settings`` (the loader behind its OpenAI clients), from the process
environment and an optional git-ignored ``.env`` at the repository root. One deliberate difference from
MAF's order: a variable set in the process environment wins over ``.env``, so ``COURSE_LLM=offline make
test`` is offline whatever ``.env`` says.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal, TypedDict, get_type_hints
from urllib.parse import urlsplit

from agent_framework import SecretString, load_settings
from agent_framework.exceptions import ChatClientException
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

Role = Literal["assistant", "writer", "reader", "summarizer", "worker", "judge"]
ROLES: tuple[Role, ...] = ("assistant", "writer", "reader", "summarizer", "worker", "judge")
ROLE_PURPOSES: dict[Role, str] = {
    "assistant": "the desk assistant of lessons 02-03 (answers the user)",
    "writer": "the fact writer (proposes key=value candidates as JSON)",
    "reader": "the reader of lesson 04 (answers under each memory policy)",
    "summarizer": "the summarizer of lesson 04's summary policy",
    "worker": "the loop's inner agent in lesson 06 (drafts an answer)",
    "judge": "the loop's LLM judge in lesson 06 (says done or what is missing)",
}
Backend = Literal["offline", "openai", "local"]
BACKENDS: tuple[Backend, ...] = ("offline", "openai", "local")

DEFAULT_TIMEOUT = 30.0
"""Seconds one request may wait for an answer (raise it for a slow local model on a CPU)."""
DEFAULT_MAX_RETRIES = 1
"""Retries after a timeout, a dropped connection, a 429 or a 5xx: a dead endpoint costs about a minute."""
LOCAL_TIMEOUT, LOCAL_MAX_RETRIES = 120.0, 0
"""The local model's bounds: a CPU shared with other work may need a minute for one capped answer, and a retry
of a server in this very process would only wait again (``COURSE_LLM_TIMEOUT`` / ``_MAX_RETRIES`` override)."""
LOCAL_API_KEY = "local-no-key"
"""What the openai SDK sends to the local server (it needs a non-blank key; llama.cpp checks none here)."""
ENV_FILE = Path(__file__).resolve().parent.parent / ".env"
"""The optional, git-ignored settings file (see ``.env.example``)."""

TIMEOUT_VAR, RETRIES_VAR = "COURSE_LLM_TIMEOUT", "COURSE_LLM_MAX_RETRIES"
FIELD_VARS = {"model": "OPENAI_MODEL", "api_key": "OPENAI_API_KEY", "base_url": "OPENAI_BASE_URL"}


class LiveSettingsError(ValueError):
    """A live setting is missing, blank or malformed: the message names the variable to fix."""


class LiveModelError(ChatClientException):
    """A live call failed: the message names the role, the cause and the setting to look at."""


class CourseSettings(TypedDict, total=False):
    """The course's own variables (prefix ``COURSE_``): backend, bounds, and one model per role."""

    llm: str | None
    llm_timeout: str | None
    llm_max_retries: str | None
    local_threads: str | None
    assistant_model: str | None
    writer_model: str | None
    reader_model: str | None
    summarizer_model: str | None
    worker_model: str | None
    judge_model: str | None


class OpenAIEndpointSettings(TypedDict, total=False):
    """The ``OPENAI_*`` variables MAF's OpenAI clients read, typed as MAF types them (the key is secret)."""

    api_key: SecretString | None
    base_url: str | None
    model: str | None


def read_settings(settings_type: type[Any], prefix: str, env_file: Path | None = None) -> dict[str, Any]:
    """Load a settings ``TypedDict`` with MAF's ``load_settings``; the process environment beats ``.env``.

    MAF checks an explicit ``.env`` before the environment; passing the environment's values as explicit
    overrides restores the usual order without re-implementing the ``.env`` parsing.
    """
    path = ENV_FILE if env_file is None else env_file
    variables = {name: prefix + name.upper() for name in get_type_hints(settings_type)}
    present = {name: os.environ[var] for name, var in variables.items() if var in os.environ}
    return load_settings(
        settings_type, env_prefix=prefix, env_file_path=str(path) if path.is_file() else None, **present
    )


class LiveSettings(BaseModel):
    """Where a live model is and how long to wait for it. The key is a :class:`SecretString`.

    ``repr``, ``str`` and every error show ``**********`` instead of the key. Blank values are refused
    rather than sent: a blank key would earn a 401 from the far end, a blank model a 404.
    """

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    model: str
    api_key: SecretString
    base_url: str | None = None
    timeout: float = Field(DEFAULT_TIMEOUT, gt=0, le=600)
    max_retries: int = Field(DEFAULT_MAX_RETRIES, ge=0, le=5)
    role_models: dict[Role, str] = Field(default_factory=dict)

    @field_validator("model", "base_url")
    @classmethod
    def _not_blank(cls, value: str | None, info: Any) -> str | None:
        if value is not None:
            _check_text(FIELD_VARS[info.field_name], value)
        return value

    @field_validator("api_key", mode="before")
    @classmethod
    def _secret(cls, value: Any) -> SecretString:
        secret = SecretString(value)
        _check_text("OPENAI_API_KEY", secret.get_secret_value())
        return secret

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(
                f"OPENAI_BASE_URL={value!r} is not an http(s) URL with a host; "
                "write it in full, e.g. http://localhost:11434/v1"
            )
        return value

    @field_validator("role_models")
    @classmethod
    def _role_models(cls, value: dict[Role, str]) -> dict[Role, str]:
        for role, model in value.items():
            _check_text(f"COURSE_{role.upper()}_MODEL", model)
        return value

    @classmethod
    def checked(cls, **values: Any) -> LiveSettings:
        """Settings from keyword values, or a :class:`LiveSettingsError` naming each variable to fix."""
        try:
            return cls(**values)
        except ValidationError as error:
            raise LiveSettingsError(_reasons(error)) from None

    def model_for(self, role: Role) -> str:
        """The model a role uses: its ``COURSE_<ROLE>_MODEL`` override, else ``OPENAI_MODEL``."""
        return self.role_models.get(role, self.model)

    @property
    def worst_case_wait(self) -> float:
        """Seconds a dead endpoint can hold one call: every attempt times out, plus the SDK's backoff between.

        The openai SDK waits about 0.5 s before the first retry, doubling up to 8 s (less with jitter).
        """
        backoff = sum(min(0.5 * 2**attempt, 8.0) for attempt in range(self.max_retries))
        return self.timeout * (self.max_retries + 1) + backoff

    @property
    def endpoint(self) -> str:
        """The base URL requests go to (the openai SDK's default when none is set)."""
        return self.base_url or "https://api.openai.com/v1"


def _check_text(variable: str, value: str) -> None:
    if not value.strip():
        raise ValueError(f"{variable} is blank; give it a value or unset it")
    if value != value.strip():
        raise ValueError(f"{variable} has leading or trailing spaces; remove them")


class Backends(BaseModel):
    """What ``make_chat_client`` will use: the backend, and the live settings when it is live."""

    model_config = ConfigDict(frozen=True)

    backend: Backend
    live: LiveSettings | None = None

    def table(self) -> list[dict[str, str]]:
        """One row per role: backend and model (for lesson 00), the seed's numbering LLM included."""
        rows = [
            {
                "role": role,
                "backend": self.backend,
                "model": self.live.model_for(role) if self.live else "offline model (course_lib.clients)",
                "purpose": ROLE_PURPOSES[role],
            }
            for role in ROLES
        ]
        rows.append(
            {
                "role": "numbering",
                "backend": "offline (always)",
                "model": "NumberingChatClient",
                "purpose": "the seed's FakeChatClient in lesson 05: its numbered replies are the demo itself",
            }
        )
        return rows


def load_course_settings(env_file: Path | None = None) -> Backends:
    """Read ``COURSE_LLM`` and, when it asks for a live model, every live setting; refuse what is wrong.

    Errors are :class:`LiveSettingsError` naming each variable to fix; nothing falls back to offline.
    """
    course = read_settings(CourseSettings, "COURSE_", env_file)
    backend = course.get("llm") or "offline"
    if backend not in BACKENDS:
        raise LiveSettingsError(
            f"COURSE_LLM={backend!r} is not supported; use 'offline' (default), 'openai' or 'local'."
        )
    if backend == "offline":
        return Backends(backend="offline")
    if backend == "local":
        return Backends(backend="local", live=_local_settings(course))
    endpoint = read_settings(OpenAIEndpointSettings, "OPENAI_", env_file)
    missing = [FIELD_VARS[name] for name in ("model", "api_key") if endpoint.get(name) is None]
    if missing:
        raise LiveSettingsError(
            f"COURSE_LLM=openai needs {', '.join(missing)} (environment or .env); no offline fallback is used."
        )
    values: dict[str, Any] = {k: v for k, v in endpoint.items() if v is not None}
    if course.get("llm_timeout") is not None:
        values["timeout"] = _number(TIMEOUT_VAR, course["llm_timeout"], float)
    if course.get("llm_max_retries") is not None:
        values["max_retries"] = _number(RETRIES_VAR, course["llm_max_retries"], int)
    values["role_models"] = {r: course[f"{r}_model"] for r in ROLES if course.get(f"{r}_model") is not None}
    return Backends(backend="openai", live=LiveSettings.checked(**values))


def _local_settings(course: dict[str, Any]) -> LiveSettings:
    """Settings for the embedded local server of :mod:`course_lib.local_model`, started here or reused.

    The server is started when the settings are read, because its address (a port the system picks) is part of
    them; every call then goes through the same :class:`~course_lib.live_client.LiveChatClient` as any endpoint.
    """
    from .local_model import LocalServerSettings, start_local_server, threads_setting  # xllamacpp: local only

    server = start_local_server(LocalServerSettings(threads=threads_setting(course.get("local_threads"))))
    values: dict[str, Any] = {
        "model": server.model.alias,
        "api_key": LOCAL_API_KEY,
        "base_url": server.base_url,
        "timeout": LOCAL_TIMEOUT,
        "max_retries": LOCAL_MAX_RETRIES,
    }
    if course.get("llm_timeout") is not None:
        values["timeout"] = _number(TIMEOUT_VAR, course["llm_timeout"], float)
    if course.get("llm_max_retries") is not None:
        values["max_retries"] = _number(RETRIES_VAR, course["llm_max_retries"], int)
    return LiveSettings.checked(**values)


def _number(variable: str, text: str, kind: type[float] | type[int]) -> float | int:
    try:
        return kind(text)
    except ValueError:
        raise LiveSettingsError(f"{variable}={text!r} is not a number.") from None


def _reasons(error: ValidationError) -> str:
    """Pydantic's reasons in the variables' names, never the values (a key could be among them)."""
    names = {**FIELD_VARS, "timeout": TIMEOUT_VAR, "max_retries": RETRIES_VAR}
    reasons = []
    for item in error.errors():
        field = str(item["loc"][0]) if item["loc"] else ""
        message = item["msg"].removeprefix("Value error, ")
        reasons.append(
            message
            if message.split(" ")[0].startswith(("OPENAI_", "COURSE_"))
            else f"{names.get(field, field)}: {message}"
        )
    return "Live settings refused: " + "; ".join(reasons) + "."
