"""A class on one machine (``make hub-test``, marker ``hub``): a real JupyterHub, three students, one shared model.

Everything listens on 127.0.0.1 and stops by itself: the shared model server (``python -m course_lib.serve_model``)
and the hub (``.venv-hub/bin/jupyterhub -f hub/jupyterhub_config.py``, its state in a temporary folder) are
started here and stopped at the end, every wait is bounded. Each student's server is started through the hub's REST
API, as an instructor's script would; each student's kernel (the course's .venv, through their server's websocket)
runs lesson 02 from the student's own copy under strict nbval and gets its stored output; then the three kernels run
the qualification at the same time against the shared server, and every case must end with an outcome. The figures
(memory per student, answers per minute) are printed and kept in ``build/hub-figures.json``.
"""

import asyncio
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbformat.sign import NotebookNotary
from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

pytestmark = pytest.mark.hub

ROOT = Path(__file__).resolve().parent.parent
HUB = ROOT / ".venv-hub" / "bin" / "jupyterhub"
STUDENTS = ("student1", "student2", "student3")
LESSON = "notebooks/02_correct_then_forget.ipynb"
OUTCOMES = {"accepted", "nothing_to_extract", "rejected", "writer_failed"}
START_BOUND = 180.0
"""Seconds for the hub, a student's server or the model server to come up on a shared, loaded 2-core machine."""
LESSON_BOUND = 600.0
QUALIFY_BOUND = 1500.0
FIGURES = ROOT / "build" / "hub-figures.json"


def _free_ports(count: int) -> int:
    """A first port with ``count`` free ones in a row on 127.0.0.1 (the hub, its API and its proxy's API)."""
    for _ in range(50):
        first = 20000 + secrets.randbelow(30000)
        try:
            for port in range(first, first + count):
                with socket.socket() as probe:
                    probe.bind(("127.0.0.1", port))
            return first
        except OSError:
            continue
    raise RuntimeError("no free ports on 127.0.0.1")


def _stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


def _wait_for_line(process: subprocess.Popen[str], marker: str, bound: float) -> list[str]:
    """The process's output lines until one holds ``marker``; fails if it ends first or takes longer than ``bound``."""
    lines: list[str] = []
    found = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line.rstrip())
            if marker in line:
                found.set()
        found.set()

    threading.Thread(target=read, daemon=True).start()
    assert found.wait(bound) and any(marker in line for line in lines), lines
    return lines


@pytest.fixture(scope="module")
def model_server() -> Iterator[dict[str, str]]:
    """The shared model server on 127.0.0.1 (3 slots) and its key; stopped at the end."""
    key = secrets.token_urlsafe(24)
    env = {
        **os.environ,
        "COURSE_SERVE_KEY": key,
        "COURSE_SERVE_PORT": str(_free_ports(1)),
        "COURSE_SERVE_PARALLEL": "3",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "course_lib.serve_model"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        lines = _wait_for_line(process, "Stop with Ctrl-C", START_BOUND)
        assert not any(key in line for line in lines)  # the key is never printed
        yield {"COURSE_SERVE_KEY": key, "COURSE_SERVE_PORT": env["COURSE_SERVE_PORT"]}
    finally:
        _stop(process)


class Hub:
    """The running hub: its URL, and the API token of the service that may start servers."""

    def __init__(self, url: str, token: str, state: Path) -> None:
        self.url, self.token, self.state = url, token, state

    def api(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            f"{self.url}{path}", data=data, method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            text = response.read()
        return json.loads(text) if text else None

    def start_server(self, user: str) -> None:
        """Start ``user``'s server through the hub's REST API (unless it runs); wait until the hub says it is ready."""
        if not self.api("GET", f"/hub/api/users/{user}")["servers"]:
            self.api("POST", f"/hub/api/users/{user}/server", {})
        deadline = time.monotonic() + START_BOUND
        while time.monotonic() < deadline:
            server = self.api("GET", f"/hub/api/users/{user}")["servers"].get("", {})
            if server.get("ready"):
                return
            time.sleep(1)
        raise AssertionError(f"{user}'s server not ready within {START_BOUND:g} s")


@pytest.fixture(scope="module")
def hub(model_server: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    """The hub on 127.0.0.1 with three students, the shared model set for every user; stopped at the end."""
    assert HUB.exists(), "run make hub-test (it installs .venv-hub from requirements-hub.lock)"
    state, port, token = tmp_path_factory.mktemp("hub"), _free_ports(3), secrets.token_hex(32)
    env = {
        **os.environ,
        **model_server,
        "COURSE_HUB_STATE": str(state),
        "COURSE_HUB_PORT": str(port),
        "COURSE_HUB_STUDENTS": ",".join(STUDENTS),
        "COURSE_HUB_TOKEN": token,
    }
    process = subprocess.Popen(
        [str(HUB), "-f", str(ROOT / "hub" / "jupyterhub_config.py")],
        cwd=state,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        _wait_for_line(process, "JupyterHub is now running", START_BOUND)
        yield Hub(f"http://127.0.0.1:{port}", token, state)
    finally:
        _stop(process)


class Kernel:
    """A kernel of a student's server, driven as JupyterLab drives it: the server's REST API, then its websocket."""

    def __init__(self, hub: Hub, user: str) -> None:
        self.hub, self.user = hub, user

    async def __aenter__(self) -> "Kernel":
        made = await asyncio.to_thread(self.hub.api, "POST", f"/user/{self.user}/api/kernels", {"name": "python3"})
        self.id = made["id"]
        url = f"{self.hub.url.replace('http', 'ws', 1)}/user/{self.user}/api/kernels/{self.id}/channels"
        self.socket = await websocket_connect(HTTPRequest(url, headers={"Authorization": f"token {self.hub.token}"}))
        return self

    async def __aexit__(self, *_: object) -> None:
        self.socket.close()
        await asyncio.to_thread(self.hub.api, "DELETE", f"/user/{self.user}/api/kernels/{self.id}")

    async def run(self, code: str, bound: float) -> str:
        """Execute ``code`` (one cell); its stdout, or an AssertionError with the traceback; at most ``bound`` s."""
        msg_id = uuid.uuid4().hex
        header = {"msg_id": msg_id, "msg_type": "execute_request", "session": self.id, "version": "5.3"}
        content = {"code": code, "silent": False, "store_history": True, "allow_stdin": False, "stop_on_error": True}
        message = {"header": header, "parent_header": {}, "metadata": {}, "content": content, "channel": "shell"}
        await self.socket.write_message(json.dumps(message))
        out: list[str] = []
        deadline = time.monotonic() + bound
        while True:
            raw = await asyncio.wait_for(self.socket.read_message(), max(1.0, deadline - time.monotonic()))
            assert raw is not None, f"{self.user}'s kernel closed its websocket"
            reply = json.loads(raw)
            if reply.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            if reply["msg_type"] == "stream":
                out.append(reply["content"]["text"])
            elif reply["msg_type"] == "error":
                raise AssertionError(f"{self.user}: " + "\n".join(reply["content"]["traceback"]))
            elif reply["msg_type"] == "status" and reply["content"]["execution_state"] == "idle":
                return "".join(out)


MEASURE = """
import json, os
rss = lambda pid: int(next(l for l in open(f"/proc/{pid}/status") if l.startswith("VmRSS")).split()[1]) // 1024
print("HUBTEST", json.dumps({"cwd": os.getcwd(), "kernel_mb": rss(os.getpid()), "server_mb": rss(os.getppid())}))
"""
NBVAL = f"""
import json, os, subprocess, sys
run = subprocess.run(
    [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "--nbval",
     "--nbval-current-env", "--nbval-sanitize-with={ROOT / "nbval_sanitize.cfg"}", "{LESSON}"],
    capture_output=True, text=True, timeout={LESSON_BOUND / 2:g}, env={{**os.environ, "COURSE_LLM": "offline"}},
)
open("my-notes.txt", "w").write(os.environ["USER"])  # a student's own file, in their own home
print("HUBTEST", json.dumps({{"code": run.returncode, "tail": run.stdout[-1500:]}}))
"""


def _result(text: str) -> dict[str, Any]:
    """The JSON a kernel printed after ``HUBTEST`` (a lesson's own cells print before it)."""
    line = next(line for line in reversed(text.splitlines()) if line.startswith("HUBTEST "))
    return dict(json.loads(line.removeprefix("HUBTEST ")))


async def _lesson_in_own_kernel(hub: Hub, user: str) -> dict[str, Any]:
    """Lesson 02 checked by strict nbval in the student's copy, then run cell by cell in a kernel of their server."""
    cells = [cell["source"] for cell in json.loads((ROOT / LESSON).read_text())["cells"] if cell["cell_type"] == "code"]
    async with Kernel(hub, user) as kernel:
        checked = _result(await kernel.run(NBVAL, LESSON_BOUND / 2))
        before = _result(await kernel.run(MEASURE, 60))
        await kernel.run('import os; os.environ["COURSE_LLM"] = "offline"', 60)  # as the stored outputs were made
        for source in cells:
            await kernel.run("".join(source), LESSON_BOUND / len(cells))
        after = _result(await kernel.run(MEASURE, 60))
    return {
        **checked,
        "cwd": before["cwd"],
        "server_mb": after["server_mb"],
        "kernel_mb": after["kernel_mb"],
        "kernel_mb_at_start": before["kernel_mb"],
    }


def test_each_student_runs_lesson_02_in_their_own_server_and_gets_its_stored_output(hub: Hub) -> None:
    for user in STUDENTS:
        hub.start_server(user)

    async def all_three() -> list[dict[str, Any]]:
        return list(await asyncio.gather(*(_lesson_in_own_kernel(hub, user) for user in STUDENTS)))

    results = asyncio.run(all_three())
    for user, result in zip(STUDENTS, results, strict=True):
        assert result["code"] == 0, (user, result["tail"])  # strict nbval: every cell's stored output, in their copy
        assert Path(result["cwd"]) == hub.state / "home" / user
    for user in STUDENTS:  # each student's file is in their own home only, and nothing in the course's files
        assert (hub.state / "home" / user / "my-notes.txt").read_text() == user
    assert not (ROOT / "notebooks" / "my-notes.txt").exists()
    for user in STUDENTS:  # their copies are signed with the key their server checks: stored tables keep their style
        home = hub.state / "home" / user
        notary = NotebookNotary(data_dir=str(home / ".course-notary"))
        lessons = sorted((home / "notebooks").glob("[0-9]*.ipynb"))
        assert lessons and all(notary.check_signature(nbformat.read(lesson, as_version=4)) for lesson in lessons)
    status = ["git", "status", "--porcelain", "notebooks", "data"]
    assert subprocess.run(status, cwd=ROOT, capture_output=True, text=True, check=True).stdout == ""
    keys = ("server_mb", "kernel_mb_at_start", "kernel_mb")
    memory = {user: {k: r[k] for k in keys} for user, r in zip(STUDENTS, results, strict=True)}
    _keep_figures(memory_after_lesson_02=memory)


QUALIFY_CODE = """
import json, os, time
os.environ["COURSE_LOCAL_REUSE"] = "0"  # every case is asked, as make qualify does
from course_lib.qualify import run
start = time.perf_counter()
card, _ = await run()
rss = lambda pid: int(next(l for l in open(f"/proc/{pid}/status") if l.startswith("VmRSS")).split()[1]) // 1024
print("HUBTEST", json.dumps({"seconds": time.perf_counter() - start, "kernel_mb": rss(os.getpid()),
                  "rows": card[["case", "outcome", "reason", "calls"]].to_dict("records")}))
"""


def _qualify(hub: Hub, users: tuple[str, ...]) -> tuple[list[dict[str, Any]], float]:
    async def one(user: str) -> str:
        async with Kernel(hub, user) as kernel:
            return await kernel.run(QUALIFY_CODE, QUALIFY_BOUND)

    async def together() -> list[str]:
        return list(await asyncio.gather(*(one(user) for user in users)))

    start = time.perf_counter()
    texts = asyncio.run(together())
    return [_result(text) for text in texts], time.perf_counter() - start


OWN_MODEL = """
import json, os
os.environ["COURSE_LLM"] = "local"  # what every student's kernel would do without the shared server
from course_lib.clients import make_chat_client
from course_lib.local_model import stop_local_server
make_chat_client("writer")
rss = lambda pid: int(next(l for l in open(f"/proc/{pid}/status") if l.startswith("VmRSS")).split()[1]) // 1024
print("HUBTEST", json.dumps({"kernel_mb": rss(os.getpid()), "stopped": stop_local_server()}))
"""


def _own_models_kernel_mb(hub: Hub, users: tuple[str, ...]) -> list[int]:
    """Each of ``users`` starts the local backend in their kernel at the same time: a server each, then stopped."""

    async def measure(user: str) -> dict[str, Any]:
        async with Kernel(hub, user) as kernel:
            return _result(await kernel.run(OWN_MODEL, START_BOUND))

    async def together() -> list[dict[str, Any]]:
        return list(await asyncio.gather(*(measure(user) for user in users)))

    measured = asyncio.run(together())
    assert all(m["stopped"] for m in measured)
    return [int(m["kernel_mb"]) for m in measured]


def _answers_per_minute(runs: list[dict[str, Any]], seconds: float) -> float:
    """Calls the server answered (every call of a case that did not fail on the endpoint), per minute of wall time."""
    answered = sum(r["calls"] for run in runs for r in run["rows"] if not str(r["reason"]).startswith("endpoint"))
    return round(answered / (seconds / 60), 1)


def test_three_students_qualify_at_once_on_the_shared_model_and_every_case_ends_with_an_outcome(hub: Hub) -> None:
    for user in STUDENTS:
        hub.start_server(user)  # already running after the lesson test: the hub answers at once
    figures: dict[str, Any] = {"kernel_mb_with_a_model_of_its_own": _own_models_kernel_mb(hub, STUDENTS[:2])}
    if os.environ.get("HUB_FIGURES"):  # the one-student figure costs a qualification more
        alone, seconds = _qualify(hub, STUDENTS[:1])
        figures["answers_per_minute_1_student"] = _answers_per_minute(alone, seconds)
    runs, seconds = _qualify(hub, STUDENTS)
    for user, run in zip(STUDENTS, runs, strict=True):
        outcomes = [row["outcome"] for row in run["rows"]]
        assert len(outcomes) == 15 and set(outcomes) <= OUTCOMES, (user, outcomes)
        assert not any(str(row["reason"]).startswith("endpoint") for row in run["rows"]), (user, run["rows"])
    figures["answers_per_minute_3_students"] = _answers_per_minute(runs, seconds)
    figures["qualification_seconds_3_students"] = round(seconds, 1)
    figures["kernel_mb_after_qualification"] = [run["kernel_mb"] for run in runs]
    _keep_figures(**figures)


def _keep_figures(**figures: Any) -> None:
    FIGURES.parent.mkdir(exist_ok=True)
    kept = json.loads(FIGURES.read_text()) if FIGURES.exists() else {}
    kept.update(figures, load_average=Path("/proc/loadavg").read_text().split()[:3])
    FIGURES.write_text(json.dumps(kept, indent=1))
    print(json.dumps(figures))
