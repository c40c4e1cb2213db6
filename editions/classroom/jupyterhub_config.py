"""The simulated class's hub: dummy login, one local server per student, all on 127.0.0.1.

run_class.py starts ``jupyterhub -f`` on this file and passes every setting through the
environment (names start with CLASSROOM_). Nothing here is for production: the dummy
authenticator accepts any password and the students share the hub's system account.
"""

import os
import shutil
import socket

from jupyterhub.spawner import SimpleLocalProcessSpawner

c = get_config()  # noqa: F821 (provided by jupyterhub when it loads this file)

setting = os.environ.__getitem__
CLASS_DIR = setting("CLASSROOM_DIR")
GIVEN_PORTS: set[int] = set()


def first_ephemeral_port() -> int:
    """The lowest port the kernel hands out for bind(port 0) (Linux's default is 32768)."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as ports:
            return int(ports.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def server_port() -> int:
    """A free port for a student's server, below the ephemeral range.

    JupyterHub's own choice binds port 0 and lets it go; the server takes it seconds later,
    and meanwhile another student's kernel, binding port 0 for its channels, can take it
    ("port ... is not available"). No kernel is given a port below the ephemeral range."""
    for port in range(first_ephemeral_port() - 1, 1024, -1):
        if port in GIVEN_PORTS:
            continue
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        GIVEN_PORTS.add(port)
        return port
    raise RuntimeError("no free port below the ephemeral range for a student's server")


class ClassroomSpawner(SimpleLocalProcessSpawner):
    """A home (a copy of the skeleton home, as a new account gets /etc/skel), a temp dir
    and a port (``server_port``) of its own for each student."""

    def temp_dir(self):
        return os.path.join(CLASS_DIR, "tmp", self.user.name)

    async def start(self):
        if not os.path.exists(self.home_dir):
            shutil.copytree(setting("CLASSROOM_SKEL"), self.home_dir)
        os.makedirs(self.temp_dir(), 0o700, exist_ok=True)
        self.port = server_port()
        return await super().start()

    def user_env(self, env):
        env = super().user_env(env)
        env["TMPDIR"] = self.temp_dir()
        return env


c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = int(setting("CLASSROOM_PORT"))
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(setting("CLASSROOM_HUB_PORT"))
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{setting('CLASSROOM_PROXY_API_PORT')}"
c.ConfigurableHTTPProxy.command = [setting("CLASSROOM_PROXY")]
c.ConfigurableHTTPProxy.pid_file = os.path.join(CLASS_DIR, "proxy.pid")
c.JupyterHub.db_url = f"sqlite:///{os.path.join(CLASS_DIR, 'jupyterhub.sqlite')}"
c.JupyterHub.cookie_secret_file = os.path.join(CLASS_DIR, "jupyterhub_cookie_secret")
c.JupyterHub.cleanup_servers = True  # stopping the hub stops every student's server

c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allow_all = True

c.JupyterHub.spawner_class = ClassroomSpawner
c.SimpleLocalProcessSpawner.home_dir_template = os.path.join(CLASS_DIR, "homes", "{username}")
c.Spawner.cmd = [setting("CLASSROOM_SINGLEUSER")]
if os.getuid() == 0:
    # On a real hub a student is an unprivileged account. Root ignores permission bits,
    # which would hide a notebook writing into the read-only course folder: so a root
    # hub's servers (and their kernels) lose the capabilities that bypass them.
    c.Spawner.cmd = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner",
                     "--", *c.Spawner.cmd]
    c.Spawner.args = ["--allow-root"]
c.Spawner.environment = {
    # Marks every server and kernel of this run, so that cleanup finds them all.
    "CLASSROOM_RUN": setting("CLASSROOM_RUN"),
}
# Two cores starting a class at once: give a server more than the default 30 s.
c.Spawner.http_timeout = 300
c.Spawner.start_timeout = 300
c.JupyterHub.concurrent_spawn_limit = 0

# The driver's own token: it may list the students' servers, and nothing else.
c.JupyterHub.services = [{"name": "classroom-driver", "api_token": setting("CLASSROOM_TOKEN")}]
c.JupyterHub.load_roles = [{"name": "classroom-driver", "services": ["classroom-driver"],
                            "scopes": ["read:users", "read:servers"]}]
