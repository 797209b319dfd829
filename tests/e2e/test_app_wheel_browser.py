"""The app from a wheel, not a checkout: ``python -m build`` packs app.py, pages/, components/, core/, storage/,
assets/ and the Streamlit config; installed with ``--no-deps`` into a fresh virtualenv outside the repository
(``--system-site-packages`` lends it torch and the other dependencies), ``toolatlas app`` started from a folder
that is not the checkout serves the demo catalog, finds the demo MCP server where it was installed and keeps the
packaged config.toml. Nothing is written to the user's data folders: HOME and the XDG folders are temporary."""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import time
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.e2e.app_server import REPO, RUNNING, free_port, wait_healthy
from tests.e2e.conftest import screenshot, settle

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

# what a checkout holds that the build does not read
NOT_SOURCES = shutil.ignore_patterns(".git", "tests", "bench", "build", "dist", "*.egg-info", "__pycache__",
                                     ".pytest_cache", ".ruff_cache", "secrets.toml", "*.db", "*.db-wal", "*.db-shm")

# run inside the virtualenv: where the packages come from, and the demo MCP server started from there
WHERE = (
    "import json, components, core, storage\n"
    "from core.execution.setup import demo_server_command\n"
    "from core.importers.mcp_live import load_mcp_server\n"
    "from core.workspace import DEMO_DIR\n"
    "command = demo_server_command()\n"
    "print(json.dumps({'core': core.__file__, 'components': components.__file__, 'storage': storage.__file__,\n"
    "                  'demo': str(DEMO_DIR), 'server': command, 'served': len(load_mcp_server(command, timeout=120))}))\n"
)


@dataclass(frozen=True)
class Installed:
    wheel: Path
    python: Path
    toolatlas: Path
    site_packages: Path
    outside: Path  # a folder outside the checkout to run from
    env: dict[str, str]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    root = tmp_path_factory.mktemp("wheel")
    src, dist, venv = root / "src", root / "dist", root / "venv"
    shutil.copytree(REPO, src, ignore=NOT_SOURCES)  # the build writes build/ and *.egg-info beside its sources
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist), str(src)],
                          cwd=root, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    print(f"wheel built in {time.monotonic() - started:.1f} s")
    (wheel,) = dist.glob("toolatlas-*.whl")
    print(f"wheel size: {wheel.stat().st_size / 1024:.0f} KiB")

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)], check=True,
                   timeout=300)
    python = venv / "bin" / "python"
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             capture_output=True, text=True, check=True, timeout=120)
    site_packages = Path(purelib.stdout.strip()).resolve()
    if sys.prefix != sys.base_prefix:  # this interpreter is a virtualenv itself: lend its packages, not the base's
        (site_packages / "_lent.pth").write_text("".join(f"import site; site.addsitedir({p!r})\n"
                                                         for p in site.getsitepackages()))
    home = root / "home"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "data"), XDG_CONFIG_HOME=str(home / "config"),
               XDG_CACHE_HOME=str(home / "cache"), TOOLATLAS_DB_URL=f"sqlite:///{root / 'atlas.db'}")
    outside = root / "elsewhere"
    outside.mkdir()
    # pip from the lent packages installs into the virtualenv it runs in; the wheel alone, nothing fetched
    done = subprocess.run([python, "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)], cwd=outside,
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return Installed(wheel, python, venv / "bin" / "toolatlas", site_packages, outside, env)


def _sources(folder: str, pattern: str) -> set[str]:
    return {p.relative_to(REPO).as_posix() for p in (REPO / folder).rglob(pattern)
            if p.is_file() and "__pycache__" not in p.parts}


def test_the_wheel_holds_the_whole_app_and_its_config(installed):
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = set(wheel.namelist())
        config = wheel.read(".streamlit/config.toml")
    wanted = {"app.py", ".streamlit/config.toml", *_sources("assets", "*"), *_sources("pages", "*.py"),
              *_sources("components", "*.py"), *_sources("core", "*.py"), *_sources("storage", "*.py")}
    assert wanted - names == set()
    assert config == (REPO / ".streamlit" / "config.toml").read_bytes()
    assert not any(n.startswith(("tests/", "bench/")) or n.endswith("secrets.toml") for n in names)


def test_the_virtualenv_imports_the_installed_app_not_the_checkout(installed):
    done = subprocess.run([installed.python, "-c", WHERE], cwd=installed.outside, env=installed.env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    where = json.loads(done.stdout.strip().splitlines()[-1])
    site_packages = installed.site_packages
    for key in ("core", "components", "storage", "demo"):
        assert Path(where[key]).resolve().is_relative_to(site_packages), (key, where[key])
    assert where["server"][1] == str(site_packages / "assets" / "demo_mcp" / "server.py")
    assert where["served"] > 10  # the demo MCP server started from there and listed its tools


@pytest.fixture
def served(installed):
    """``toolatlas app --port N`` run from outside the checkout; its URL once healthy. Stopped afterwards with
    SIGTERM, which must end it cleanly (exit status 0)."""
    port, log_path = free_port(), installed.outside / "app.log"
    started = time.monotonic()
    with open(log_path, "w") as log:
        proc = subprocess.Popen([installed.toolatlas, "app", "--port", str(port)], cwd=installed.outside,
                                env=installed.env, stdout=log, stderr=subprocess.STDOUT)
    RUNNING[proc.pid] = (proc, log_path)  # a failed test's report carries its log (tests/e2e/conftest.py)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(proc, url, log_path, timeout=180)
        print(f"toolatlas app healthy after {time.monotonic() - started:.1f} s")
        yield url
    finally:
        RUNNING.pop(proc.pid, None)
        proc.terminate()
        try:
            code = proc.wait(120)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = "killed"
    assert code == 0, f"toolatlas app did not stop cleanly on SIGTERM ({code}):\n{log_path.read_text()[-3000:]}"


def test_toolatlas_app_serves_the_demo_catalog_from_the_installed_package(installed, served, page):
    page.goto(f"{served}/catalog", wait_until="domcontentloaded")
    box = page.get_by_label("Search the catalog")
    box.wait_for(timeout=240_000)  # the first visit embeds the demo catalog
    box.fill("convert 100 US dollars into euros")
    box.press("Enter")
    page.get_by_text("results in").first.wait_for(timeout=120_000)
    heading = page.locator("h4").first.inner_text().lower()
    assert "currenc" in heading or "exchange" in heading, heading
    screenshot(page, "app_wheel_catalog_search")

    # Trials names the demo MCP server it would start: the installed one. Its primary colour is the packaged
    # config.toml's (Streamlit's own is red): the config beside the installed app.py was read.
    page.goto(f"{served}/trials", wait_until="domcontentloaded")
    run = page.get_by_role("button", name="Run trials")
    run.wait_for(timeout=180_000)
    settle(page)
    server = str(installed.site_packages / "assets" / "demo_mcp" / "server.py")
    assert page.get_by_text(server).count() >= 1
    primary = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text())["theme"]["primaryColor"]
    rgb = "rgb({}, {}, {})".format(*(int(primary[i:i + 2], 16) for i in (1, 3, 5)))
    assert run.evaluate("e => getComputedStyle(e).backgroundColor") == rgb
    assert page.locator('[data-testid="stException"]').count() == 0
    screenshot(page, "app_wheel_trials")
    assert page.dialogs == []
