"""``toolatlas app``: the Streamlit command line it runs (the installed app itself: test_app_wheel.py)."""

import sys
from pathlib import Path

import pytest

from core.cli import app as app_cmd
from core.cli import main
from core.cli.entry import build_parser

REPO = Path(__file__).resolve().parents[3]


def _command(*argv):
    return app_cmd.streamlit_command(build_parser().parse_args(["app", *argv]))


def test_the_app_script_is_the_one_beside_core():
    assert app_cmd.APP_SCRIPT == REPO / "app.py"


def test_default_serves_this_machine_only_on_streamlits_port():
    assert _command() == [sys.executable, "-m", "streamlit", "run", str(REPO / "app.py"),
                          "--server.address", "127.0.0.1"]


def test_port_address_and_streamlit_flags_after_the_double_dash():
    cmd = _command("--port", "8600", "--address", "0.0.0.0", "--", "--theme.base", "dark")  # noqa: S104
    assert cmd[5:] == ["--server.address", "0.0.0.0", "--server.port", "8600", "--theme.base", "dark"]  # noqa: S104


def test_anything_but_a_flag_after_the_double_dash_is_a_clear_error(capsys):
    assert main(["app", "--", "other.py"]) == 2
    assert "only Streamlit flags after --" in capsys.readouterr().err


def test_a_missing_app_script_is_a_clear_error(tmp_path):
    args = build_parser().parse_args(["app"])
    with pytest.raises(FileNotFoundError, match="reinstall toolatlas"):
        app_cmd.streamlit_command(args, script=tmp_path / "app.py")
