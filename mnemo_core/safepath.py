"""Keep the analysed repository off ``sys.path``, so its ``numpy.py`` or ``multiprocessing.py`` is
never imported in place of the real one.

``python -m mnemo_core.cli`` (like ``python -c``) puts the working directory first on ``sys.path``,
and the working directory is usually the repository being analysed. Each of mnemo's packages calls
:func:`drop_working_directory` first thing, which removes that entry when the interpreter is
starting a ``-m`` module (``sys.argv[0] == "-m"`` while the module's packages are imported).
Nothing can help when the repository has a ``mnemo_core/`` of its own: Python finds that before
any of mnemo's code runs (use the console scripts, or ``python -P -m``). Console scripts put only
their own directory on ``sys.path``. :func:`is_untrusted` is what worker processes are started
without (see ``mnemo_core.index.workers``).
"""

from __future__ import annotations

import os
import sys

HOME = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # where mnemo itself is imported from


def drop_working_directory() -> None:
    """Remove the working directory that ``python -m`` put first on ``sys.path``."""
    if sys.argv[:1] == ["-m"] and sys.path and is_untrusted(sys.path[0], os.getcwd()):
        del sys.path[0]


def is_untrusted(entry: str, root: str) -> bool:
    """Whether a ``sys.path`` entry may put the analysed code first: a relative one (it means the
    working directory, which may be anything), the working directory or ``root`` itself, unless mnemo
    itself is imported from there. Other entries stay, even inside ``root``: they were put there on
    purpose (a virtual environment in the repository's ``.venv``, ``PYTHONPATH``)."""
    if not os.path.isabs(entry):
        return True
    real = os.path.realpath(entry)
    return real != os.path.realpath(HOME) and real in {os.path.realpath(root), os.path.realpath(os.getcwd())}
