"""Builds the retrylab wheel through CMake (pyproject.toml has the metadata; docs/python.md).

build_ext configures this source tree with the Python module on and tests, benchmarks, proofs and
planted faults off, builds only the targets retrylab_python (the extension) and retrylab (the CLI,
installed as retrylab/bin/retrylab behind the `retrylab` command), and copies both into the wheel.
RETRYLAB_CMAKE_BUILD_DIR=DIR reuses an existing build folder configured with
RETRYLAB_WITH_PYTHON=ON (e.g. build/release: CI then compiles nothing again); it is built, never
reconfigured. Otherwise the folder is build/wheel (kept: a second install compiles only what
changed). CMAKE_BUILD_PARALLEL_LEVEL sets the build's jobs (default 2).
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        m = re.search(r"project\(retrylab VERSION ([0-9.]+)", f.read())
    if not m:
        raise RuntimeError("CMakeLists.txt: no `project(retrylab VERSION x.y.z`")
    return m.group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        reuse = os.environ.get("RETRYLAB_CMAKE_BUILD_DIR")
        # Its own folder beside the presets' (build/release): a compiler cache then hits for every
        # file a release build already compiled (same flags, same paths relative to the folder).
        build_dir = os.path.abspath(reuse) if reuse else os.path.join(ROOT, "build", "wheel")
        if reuse:
            cache = os.path.join(build_dir, "CMakeCache.txt")
            if not os.path.isfile(cache):
                raise RuntimeError(f"RETRYLAB_CMAKE_BUILD_DIR={reuse}: no CMakeCache.txt there (configure it first)")
            with open(cache, encoding="utf-8") as f:
                if not re.search(r"^RETRYLAB_WITH_PYTHON:BOOL=ON$", f.read(), re.M):
                    raise RuntimeError(f"RETRYLAB_CMAKE_BUILD_DIR={reuse} is not configured with "
                                       "-DRETRYLAB_WITH_PYTHON=ON")
        else:
            os.makedirs(build_dir, exist_ok=True)
            generator = ["-G", "Ninja"] if shutil.which("ninja") else []
            subprocess.run(["cmake", "-S", ROOT, "-B", build_dir, *generator, "-DCMAKE_BUILD_TYPE=Release",
                            "-DRETRYLAB_WITH_PYTHON=ON", "-DRETRYLAB_BUILD_TESTS=OFF", "-DRETRYLAB_BUILD_BENCHMARKS=OFF",
                            "-DRETRYLAB_BUILD_PROOFS=OFF", "-DRETRYLAB_PLANTED_FAULTS=OFF",
                            f"-DPython3_EXECUTABLE={sys.executable}"], check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2")
        subprocess.run(["cmake", "--build", build_dir, "--target", "retrylab_python", "retrylab", "-j", jobs],
                       check=True)

        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        built = glob.glob(os.path.join(build_dir, "python", "retrylab", "_core*.so"))
        if not built:
            raise RuntimeError(f"{build_dir}: the build made no python/retrylab/_core*.so")
        if not any(b.endswith(suffix) for b in built):
            raise RuntimeError(f"{build_dir} holds {', '.join(map(os.path.basename, built))}, built for another "
                               f"Python than {sys.executable} (wants _core{suffix}): build with that interpreter "
                               "or leave RETRYLAB_CMAKE_BUILD_DIR unset")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile([b for b in built if b.endswith(suffix)][0], target)

        exe = os.path.join(build_dir, "cli", "retrylab")
        if not os.path.isfile(exe):
            raise RuntimeError(f"{build_dir}: the build made no cli/retrylab")
        package = os.path.dirname(target)
        os.makedirs(os.path.join(package, "bin"), exist_ok=True)
        shutil.copy2(exe, os.path.join(package, "bin", "retrylab"))


setup(version=version(), ext_modules=[Extension("retrylab._core", sources=[])], cmdclass={"build_ext": CMakeBuild})
