# SPDX-License-Identifier: LGPL-2.1-or-later
"""Build perftune._perftune against an installed libperftune (pkg-config).

SWIG runs on perftune.i into the build directory (never the source tree).
Metadata is in setup.cfg; the version is the library's.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

PKG = "libperftune"
SYSTEM_LIBDIRS = {"/lib", "/lib64", "/usr/lib", "/usr/lib64"}


def pkgconfig(*args: str) -> str:
    """Output of pkg-config ARGS libperftune, or a clear error."""
    cmd = [os.environ.get("PKG_CONFIG", "pkg-config"), *args, PKG]
    try:
        return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip()
    except FileNotFoundError:
        raise SystemExit("pkg-config not found: install pkg-config") from None
    except subprocess.CalledProcessError as e:
        raise SystemExit(
            f"{' '.join(cmd)} failed: {e.stderr.strip()}\n"
            "install libperftune's development files (libperftune-dev), or point "
            "PKG_CONFIG_PATH at the lib/pkgconfig directory of its prefix"
        ) from None


def flags(prefix: str, words: list[str]) -> list[str]:
    return [w[len(prefix) :] for w in words if w.startswith(prefix)]


cflags = shlex.split(pkgconfig("--cflags"))
libs = shlex.split(pkgconfig("--libs"))
includedir = pkgconfig("--variable=includedir")
libdir = pkgconfig("--variable=libdir")
include_dirs = flags("-I", cflags) + [includedir]
library_dirs = flags("-L", libs)
multiarch = sysconfig.get_config_var("MULTIARCH")
system_libdirs = SYSTEM_LIBDIRS | (
    {f"/usr/lib/{multiarch}", f"/lib/{multiarch}"} if multiarch else set()
)
# a library outside the system directories (/usr/local, a private prefix) is
# found at run time through an rpath, as it was at build time through pkg-config
rpath = [libdir] if os.path.normpath(libdir) not in system_libdirs else []


class SwigBuildExt(build_ext):
    """swig -python -noproxy: the C module is perftune._perftune itself."""

    def swig_sources(self, sources: list[str], extension: Extension) -> list[str]:
        swig = shutil.which(os.environ.get("SWIG", "swig"))
        if not swig:
            raise SystemExit("swig not found: install swig (4.0 or later)")
        out = []
        for src in sources:
            if not src.endswith(".i"):
                out.append(src)
                continue
            target = os.path.join(self.build_temp, os.path.basename(src)[:-2] + "_wrap.c")
            os.makedirs(self.build_temp, exist_ok=True)
            self.spawn(
                [swig, "-python", "-noproxy", "-threads"]
                + [f"-I{d}" for d in include_dirs]
                + ["-o", target, src]
            )
            out.append(target)
        return out


setup(
    version=pkgconfig("--modversion"),
    ext_modules=[
        Extension(
            "perftune._perftune",
            sources=["perftune.i"],
            include_dirs=include_dirs,
            library_dirs=library_dirs,
            libraries=flags("-l", libs),
            runtime_library_dirs=rpath,
            extra_compile_args=[w for w in cflags if not w.startswith("-I")],
        )
    ],
    cmdclass={"build_ext": SwigBuildExt},
)
