"""Everything about the package is in pyproject.toml; this only adds .streamlit/config.toml to the wheel, next to
app.py, where no package's data can go (``.streamlit`` is not a package name). ``toolatlas app`` runs that app.py,
and Streamlit reads the config.toml in the folder of the script it runs, so the installed app keeps the
checkout's settings. An editable install needs nothing from here: its app.py is the checkout's."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

STREAMLIT_CONFIG = Path(".streamlit", "config.toml")


class BuildPyWithStreamlitConfig(build_py):
    def run(self):
        super().run()
        target = Path(self.build_lib, STREAMLIT_CONFIG)
        self.mkpath(str(target.parent))
        self.copy_file(str(STREAMLIT_CONFIG), str(target))

    def get_outputs(self, include_bytecode=True):
        return [*super().get_outputs(include_bytecode), str(Path(self.build_lib, STREAMLIT_CONFIG))]


setup(cmdclass={"build_py": BuildPyWithStreamlitConfig})
