"""The one factory for every model role: offline by default (no key), live when the settings ask.

``make_chat_client(role)`` builds the client a lesson asks for. Offline, each role has its own
deterministic model, and the factory imports that model's module only when it builds the role: the
memory lessons' writer, assistant/reader and summarizer live in :mod:`course_lib.memory_models` (memory
half), the loop lessons' worker and judge in :mod:`course_lib.loop_demos` (loop half). So this module
loads neither half, and a lesson of one half never loads the other through it. Live, the role gets an
OpenAI-compatible endpoint from the settings in :mod:`course_lib.live`, built by
:mod:`course_lib.live_client`, also imported only then (it loads the openai SDK). Reading the settings starts
nothing; this module is the one place that starts the local llama.cpp server (:func:`course_backends`), when
``COURSE_LLM=local`` asks for it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agent_framework import BaseChatClient, Message

from .live import (
    RESTART_MENU,
    ROLES,
    Backends,
    LiveModelError,
    LiveSettingsError,
    Role,
    load_course_settings,
    local_bounds,
    local_settings,
)
from .offline import OfflineChatClient, without_tool_loop
from .tracing import CallLog, RecordingMiddleware

if TYPE_CHECKING:  # option types only: the models themselves load when their role is built
    from .memory_models import ResolutionRule, SummaryMode


__all__ = [
    "LIVE_CHECK_PROMPT",
    "course_backends",
    "live_model_check",
    "make_chat_client",
    "models_in_words",
    "started",
    "would_call_words",
]


def make_chat_client(
    role: Role,
    *,
    log: CallLog | None = None,
    name: str | None = None,
    resolution: ResolutionRule = "latest",
    summary_budget: int = 240,
    summary_mode: SummaryMode = "extractive",
    backends: Backends | None = None,
) -> BaseChatClient:
    """The chat client for a model role: offline unless ``COURSE_LLM`` asks for a live model.

    ``COURSE_LLM=openai`` names an endpoint; ``COURSE_LLM=local`` starts (once per process) the embedded
    llama.cpp server of :mod:`course_lib.local_model` and reaches it through the same live client.

    Roles: ``assistant`` (desk), ``writer``, ``reader`` and ``summarizer`` (lesson 04), ``worker`` and
    ``judge`` (lesson 06). ``resolution``, ``summary_budget`` and ``summary_mode`` shape the offline models
    only; a live model resolves conflicts and summarises its own way. The seed's numbering LLM is not a role: it is
    offline by nature (its numbered replies are the demo). Live settings come from the environment and
    ``.env`` (:func:`course_backends`); a missing or blank one is an error, never a
    silent switch back to offline. With a ``log``, every call is recorded there (live ones with the usage
    the provider reported). ``name`` labels the log rows (default: the role). No role is given tools, so every
    client comes without MAF's tool loop (:func:`course_lib.offline.without_tool_loop`), live or offline.
    """
    if role not in ROLES:
        raise ValueError(f"Unknown model role {role!r}; choose one of {ROLES}.")
    backends = course_backends() if backends is None else started(backends)
    label = name or role
    if backends.live is None:
        return without_tool_loop(_offline_client(role, log, label, resolution, summary_budget, summary_mode))
    from .live_client import make_live_client  # the openai SDK loads only when a live client is built

    middleware = [RecordingMiddleware(log, label)] if log is not None else None
    return without_tool_loop(make_live_client(role, backends.live, middleware=middleware))


def course_backends(env_file: Path | None = None) -> Backends:
    """The settings (:func:`course_lib.live.load_course_settings`), with the local server started when they ask for it.

    ``COURSE_LLM=local`` reads as a request (:class:`~course_lib.live.LocalRequest`); here the embedded server starts
    (once per process, :mod:`course_lib.local_model`) and the request becomes live settings for its address.
    """
    return started(load_course_settings(env_file))


def started(backends: Backends) -> Backends:
    """``backends`` ready to build clients: a local request gets its server started; any other backend as given."""
    if backends.local is None or backends.live is not None:
        return backends
    from .local_model import LocalServerSettings, start_local_server, threads_setting  # xllamacpp: local only

    settings = LocalServerSettings(threads=threads_setting(backends.local.threads))
    bounds = local_bounds(backends.local, settings.max_output)  # every setting checked before anything starts
    server = start_local_server(settings)
    live = local_settings(bounds, model=server.model.alias, base_url=server.base_url)
    return Backends(backend="local", live=live)


def _offline_client(
    role: Role,
    log: CallLog | None,
    name: str,
    resolution: ResolutionRule,
    summary_budget: int,
    summary_mode: SummaryMode,
) -> OfflineChatClient:
    if role in ("worker", "judge"):  # the loop lessons' scenario models
        from .loop_demos import OfflineDraftClient, OfflineJudgeClient

        client: OfflineChatClient = OfflineDraftClient(log=log) if role == "worker" else OfflineJudgeClient(log=log)
    else:  # the memory lessons' models
        from .memory_models import OfflineAssistantClient, OfflineSummarizerClient, OfflineWriterClient

        if role == "writer":
            client = OfflineWriterClient(log=log)
        elif role == "summarizer":
            client = OfflineSummarizerClient(summary_budget, mode=summary_mode, log=log)
        else:
            client = OfflineAssistantClient(resolution, log=log, name=name)
    client.name = name
    return client


def models_in_words(backends: Backends | None = None) -> str:
    """Which models answer, in a sentence a student of lessons 01-03 reads: no class name, no "backend".

    A lesson printed its clients' class names (``OfflineAssistantClient``), words it never introduced; what the
    student needs is whether the replies come from the course's offline models or from a live one, and which setting
    chose it.
    """
    backends = backends or load_course_settings()
    if backends.backend == "offline":
        return "The models are the course's offline models (lesson 00 shows how to set up a live one)."
    return f"The models are live: COURSE_LLM={backends.backend} chose them (lesson 00)."


LIVE_CHECK_PROMPT = "Reply with the one word: ready."
"""The one short request :func:`live_model_check` sends."""


async def live_model_check(role: Role = "assistant", env_file: Path | None = None) -> str:
    """Does the model the settings choose for ``role`` answer? One short request, its outcome in sentences.

    Lesson 00's "does your live model answer?" cell: offline there is nothing to ask; settings that are refused, a
    call that fails and an answer are each said in words a student reads (never a traceback), and nothing falls
    back to the offline models.
    """
    try:
        backends = load_course_settings(env_file)
    except LiveSettingsError as error:
        return f"No model was asked: your settings were refused.\n{error}"
    if backends.live is None and backends.local is None:
        return (
            f"COURSE_LLM is {backends.backend} (the default): every role uses the course's offline models, so there "
            f"is no live model to ask. Set one up (section 3), then choose {RESTART_MENU}."
        )
    try:
        backends = started(backends)  # the local server starts here, when COURSE_LLM=local asks for it
    except LiveSettingsError as error:
        return f"No model was asked: the local model could not start.\n{error}"
    live = backends.live
    assert live is not None  # started() turned a local request into live settings
    where = f"the {role} model {live.model_for(role)} at {live.endpoint}"
    try:
        response = await make_chat_client(role, backends=backends).get_response(
            [Message(role="user", contents=[LIVE_CHECK_PROMPT])]
        )
    except LiveModelError as error:
        return (
            "The live model did not answer one short question, so every lesson would stop at its first model call "
            f"the same way:\n{error}"
        )
    answer = " ".join(response.text.split())
    shown = answer if len(answer) <= 80 else answer[:79] + "\N{HORIZONTAL ELLIPSIS}"
    return f"The live model answers: {where} replied {shown!r} to {LIVE_CHECK_PROMPT!r}."


def would_call_words(client: BaseChatClient) -> str:
    """Which model a client :func:`make_chat_client` built would call, and where, in one sentence; nothing is sent.

    Both are written the same plain way: lesson 00's cell printed the model in Python's quotes (``'llama3.2'``) and
    the address bare beside it (walk 21, issue 32).
    """
    settings = getattr(client, "settings", None)
    if settings is None:  # an offline client: no model name, no address
        return f"The {getattr(client, 'name', 'model')} would use the course's offline model: nothing is sent."
    role, model = getattr(client, "role", "model"), getattr(client, "model", "")
    return f"The {role} would call model {model} at {settings.endpoint}."
