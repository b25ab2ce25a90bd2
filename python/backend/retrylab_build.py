"""The build backend of pyproject.toml: setuptools.build_meta, reached without a network.

pip builds in an isolated environment and installs the backend's requirements into it from an index;
retrylab's machines reach none. So pyproject.toml requires nothing, and this in-tree backend takes
setuptools and wheel from the interpreter's own site-packages (Debian's python3-setuptools and
python3-wheel), which the isolated environment hides, and then is setuptools.build_meta exactly. Plain
`pip install .` then works offline, as `--no-build-isolation` and `python3 -m build --no-isolation` do.
"""
import site
import sys

for _path in [*site.getsitepackages(), "/usr/lib/python3/dist-packages"]:
    if _path not in sys.path:
        sys.path.append(_path)  # after the isolated environment's own paths: they still win

from setuptools import build_meta as _meta  # noqa: E402
from setuptools.build_meta import *  # noqa: E402,F401,F403


def get_requires_for_build_wheel(config_settings=None):
    """Nothing to install: setuptools and wheel come from the interpreter (setuptools would ask for
    `wheel`, which pip could only fetch from an index)."""
    _meta.get_requires_for_build_wheel(config_settings)  # its checks, without its answer
    return []


def get_requires_for_build_sdist(config_settings=None):
    _meta.get_requires_for_build_sdist(config_settings)
    return []
