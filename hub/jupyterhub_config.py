"""The class's JupyterHub on this machine (`make hub`): 127.0.0.1 only, a few students and one instructor.

Everything the hub keeps lives in build/hub/ (its database, cookie secret, the students' homes); nothing it does
writes into the course's own files. Each user's home gets its own copy of the lessons the first time their server
starts (`pre_spawn_hook`), so a student's edits and outputs stay in their copy. The kernels run the course's .venv
(the tested lock, course_lib installed); the servers run .venv-hub (requirements-hub.lock: JupyterHub's single-user
server, JupyterLab, Voila, nbgitpuller).

Settings, all optional, from the environment `make hub` passes:
  COURSE_HUB_PORT       the hub's port on 127.0.0.1 (default 8000; the hub's API takes the next, the proxy's API the
                        one after)
  COURSE_HUB_STUDENTS   comma-separated student names (default student1,...,student5)
  COURSE_HUB_INSTRUCTOR the instructor's name (default instructor; an admin of the hub)
  COURSE_HUB_PASSWORD   the one password of the dummy authenticator (default: none, any password is accepted)
  COURSE_HUB_TOKEN      an API token for a service with the rights to start servers (make hub-test sets one)
  COURSE_HUB_IDLE       seconds after which an idle server is stopped by jupyterhub-idle-culler (default 3600)
  COURSE_SERVE_KEY, COURSE_SERVE_PORT (and COURSE_SERVE_HOST)
                        the shared model server's (make serve-model): when the key is set, every user's kernel
                        gets COURSE_LLM=openai and the OPENAI_* settings that reach it (course_lib.serve_model)
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

c = get_config()  # noqa: F821 -- JupyterHub's config loader defines it

COURSE = Path(__file__).resolve().parent.parent
STATE = Path(os.environ.get("COURSE_HUB_STATE", COURSE / "build" / "hub"))
HUB_VENV = COURSE / ".venv-hub"
COURSE_PYTHON = COURSE / ".venv" / "bin" / "python"
STATE.mkdir(parents=True, exist_ok=True)

PORT = int(os.environ.get("COURSE_HUB_PORT", "8000"))
STUDENTS = [
    s.strip()
    for s in os.environ.get("COURSE_HUB_STUDENTS", ",".join(f"student{i}" for i in range(1, 6))).split(",")
    if s.strip()
]
INSTRUCTOR = os.environ.get("COURSE_HUB_INSTRUCTOR", "instructor")

# region The hub, its proxy and its database: loopback only, state under build/hub
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = PORT
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = PORT + 1
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{PORT + 2}"
c.ConfigurableHTTPProxy.command = [str(COURSE / "hub" / "node_modules" / ".bin" / "configurable-http-proxy")]
c.ConfigurableHTTPProxy.pid_file = str(STATE / "proxy.pid")
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.JupyterHub.cleanup_servers = True  # the students' servers stop with the hub

# region Who may log in: the dummy authenticator (a local try-out only: any name in the list, one shared password)
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allowed_users = set(STUDENTS) | {INSTRUCTOR}
c.Authenticator.admin_users = {INSTRUCTOR}
if os.environ.get("COURSE_HUB_PASSWORD"):
    c.DummyAuthenticator.password = os.environ["COURSE_HUB_PASSWORD"]

# region Each user's server: a local process of the hub's own user, started in that user's own home.
# SimpleLocalProcessSpawner, not LocalProcessSpawner: the latter switches to a system user per student (it needs
# the accounts to exist and the hub to run as root with setuid); here every server runs as the hub's user, so the
# homes are kept apart by folder, not by permission (on The Littlest JupyterHub each student is a system user).
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = str(STATE / "home" / "{username}")
c.Spawner.cmd = [str(HUB_VENV / "bin" / "jupyterhub-singleuser")]
SERVER_ARGS = ["--allow-root"] if os.geteuid() == 0 else []  # Jupyter refuses root without it (containers)
c.Spawner.args = SERVER_ARGS
c.Spawner.default_url = "/lab/tree/notebooks"
c.Spawner.start_timeout = 120  # a shared 2-core machine under load
c.Spawner.http_timeout = 120

KERNELS = STATE / "share" / "jupyter"
"""The one kernel every server offers: the course's .venv, named python3 as the lessons' metadata asks."""
(KERNELS / "kernels" / "python3").mkdir(parents=True, exist_ok=True)
(KERNELS / "kernels" / "python3" / "kernel.json").write_text(
    json.dumps(
        {
            "argv": [str(COURSE_PYTHON), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "Python 3 (course)",
            "language": "python",
        },
        indent=1,
    )
)


def shared_model_environment() -> dict[str, str]:
    """The shared model server's settings for every user, computed by the course itself (the key passes a pipe)."""
    if not os.environ.get("COURSE_SERVE_KEY"):
        return {}
    code = "import json; from course_lib import serve_model as s; "
    code += "print(json.dumps(s.student_environment(s.serve_settings())))"
    run = subprocess.run([str(COURSE_PYTHON), "-c", code], capture_output=True, text=True, timeout=60, check=False)
    if run.returncode != 0:
        sys.exit(f"The shared model's settings are wrong: {run.stderr.strip() or run.returncode}")
    return json.loads(run.stdout)


c.Spawner.environment = {
    "JUPYTER_PATH": str(KERNELS),  # before the server's own kernels: the lessons run in the course's .venv
    "COURSE_ROOT": str(COURSE),
    **shared_model_environment(),
}


def copy_lessons(spawner) -> None:
    """The user's own copy of the lessons, made once: their edits and outputs never touch the course's files.

    The copies are signed with a key in the user's home, and their server checks with it: JupyterLab drops the
    style of an untrusted notebook's stored output (the lessons' tables would read right-aligned before Run All),
    as `make trust` does for `make lab`.
    """
    from nbformat import read
    from nbformat.sign import NotebookNotary

    home = Path(spawner.home_dir)
    home.mkdir(parents=True, exist_ok=True)
    notary_dir = home / ".course-notary"
    spawner.args = [*SERVER_ARGS, f"--NotebookNotary.data_dir={notary_dir}"]
    if not (home / "notebooks").exists():
        shutil.copytree(COURSE / "notebooks", home / "notebooks", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        notary_dir.mkdir(exist_ok=True)
        notary = NotebookNotary(data_dir=str(notary_dir))
        for lesson in sorted((home / "notebooks").glob("[0-9]*.ipynb")):
            notary.sign(read(lesson, as_version=4))


c.Spawner.pre_spawn_hook = copy_lessons

# region Services: the idle culler, and (make hub-test) a token with the rights to start servers through the API
c.JupyterHub.load_roles = [
    {
        "name": "idle-culler",
        "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
        "services": ["idle-culler"],
    },
]
c.JupyterHub.services = [
    {
        "name": "idle-culler",
        "command": [
            str(HUB_VENV / "bin" / "python"),
            "-m",
            "jupyterhub_idle_culler",
            f"--timeout={os.environ.get('COURSE_HUB_IDLE', '3600')}",
        ],
    }
]
if os.environ.get("COURSE_HUB_TOKEN"):
    c.JupyterHub.services.append({"name": "course-test", "api_token": os.environ["COURSE_HUB_TOKEN"]})
    c.JupyterHub.load_roles.append(
        {
            "name": "course-test",
            "scopes": ["admin:users", "admin:servers", "access:servers"],
            "services": ["course-test"],
        }
    )
