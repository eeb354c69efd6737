# SPDX-License-Identifier: LGPL-2.1-or-later
"""write-metadata.py SETUP_CFG VERSION OUT: the METADATA file of perftune's
dist-info, from the [metadata] and [options] of setup.cfg (and the README it
names), as setuptools writes it for `pip install`.

meson installs it in perftune-VERSION.dist-info next to the package, so that
importlib.metadata and pip see a binding installed by meson, a .deb or an RPM
(and the RPM's Python dependency generator gives it python3dist(perftune)).
No RECORD is written: pip must not uninstall what the package manager owns.
"""

from __future__ import annotations

import configparser
import os
import sys


def lines(value: str) -> list[str]:
    """The entries of a setup.cfg list: one a line, or comma-separated."""
    out = []
    for line in value.strip().splitlines():
        out += [w.strip() for w in line.split(",")] if "," in line else [line.strip()]
    return [w for w in out if w]


def metadata(cfg: configparser.ConfigParser, readme: str, version: str) -> str:
    meta, opts = cfg["metadata"], cfg["options"]
    fields = [
        ("Metadata-Version", "2.1"),
        ("Name", meta["name"]),
        ("Version", version),
        ("Summary", meta["description"]),
        ("License", meta["license"]),
    ]
    fields += [("Classifier", c) for c in lines(meta.get("classifiers", ""))]
    fields += [
        ("Requires-Python", opts["python_requires"]),
        ("Description-Content-Type", meta["long_description_content_type"]),
    ]
    if cfg.has_section("options.extras_require"):
        for extra, reqs in cfg["options.extras_require"].items():
            fields.append(("Provides-Extra", extra))
            fields += [("Requires-Dist", f"{r} ; extra == '{extra}'") for r in lines(reqs)]
    head = "".join(f"{k}: {v}\n" for k, v in fields)
    return head + "\n" + readme


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 2
    cfg_path, version, out = argv[1:]
    cfg = configparser.ConfigParser(interpolation=None)
    if not cfg.read(cfg_path, encoding="utf-8"):
        print(f"{cfg_path}: cannot read", file=sys.stderr)
        return 1
    long_description = cfg.get("metadata", "long_description", fallback="")
    if not long_description.startswith("file: "):
        print(f"{cfg_path}: long_description is not 'file: README'", file=sys.stderr)
        return 1
    readme_path = os.path.join(os.path.dirname(cfg_path), long_description[len("file: ") :].strip())
    with open(readme_path, encoding="utf-8") as f:
        readme = f.read()
    with open(out, "w", encoding="utf-8") as f:
        f.write(metadata(cfg, readme, version))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
