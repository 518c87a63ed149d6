"""Only for the wheel's platform tag; the metadata is in pyproject.toml.

A wheel that carries libquartermaster_c.so inside the package (the `quartermaster_wheel` target)
is tied to this platform, so it must not be tagged `py3-none-any`; without the library (a plain
`pip install ./python`) the package is pure Python.
"""

import glob
import os

from setuptools import setup
from setuptools.dist import Distribution


class _Distribution(Distribution):
    def has_ext_modules(self) -> bool:
        here = os.path.dirname(os.path.abspath(__file__))
        return bool(glob.glob(os.path.join(here, "quartermaster", "libquartermaster_c.so*")))


setup(distclass=_Distribution)
