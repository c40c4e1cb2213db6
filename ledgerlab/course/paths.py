"""Where the course finds what is not a module, and what happens when it is not there.

This is the one module that names folders. The package itself ships ``data/``: the
benchmark results and chart that notebook 13 shows, so they are there in every install.
A checkout of the repository (the self-paced edition) has three folders more, which no
install carries: ``teacher/`` (the worked solutions, ``teacher/solutions.py``),
``notebooks/`` (the course executed: what strict nbval, the site, the graded edition and
14-solutions are built from) and ``learner/`` (the same notebooks with no outputs, what
learners open: ``ledgerlab.course.learner`` writes it).

A wheel install, JupyterLite, and the grader's sandbox (which binds the package alone)
have no checkout. There ``CHECKOUT`` is None; ``solutions_file()`` is None, so
``solution()`` explains that solutions are hidden instead of failing; and
``notebooks()`` and ``learner()`` raise ``CheckoutMissing``, which says what to do.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent  # ledgerlab/course
DATA = PACKAGE / "data"  # package data: in every install


def _checkout() -> Path | None:
    """The repository this package runs from, if it does: ledgerlab/ beside its pyproject."""
    root = PACKAGE.parents[1]
    return root if (root / "pyproject.toml").is_file() and (root / "notebooks").is_dir() else None


CHECKOUT = _checkout()


class CheckoutMissing(FileNotFoundError):
    """What was asked for lives in a checkout of the repository, and this is an install."""


def solutions_file() -> Path | None:
    """``teacher/solutions.py`` of the checkout; None where there is none (an install)."""
    return None if CHECKOUT is None else CHECKOUT / "teacher" / "solutions.py"


def notebooks() -> Path:
    """``notebooks/`` of the checkout; CheckoutMissing in an install, which has none."""
    if CHECKOUT is None:
        raise CheckoutMissing(f"the course's notebooks are not installed with the package "
                              f"({PACKAGE.parent} has no checkout around it): run this from "
                              f"a clone of the ledgerlab repository")
    return CHECKOUT / "notebooks"


def learner() -> Path:
    """``learner/`` of the checkout, the notebooks as learners open them; CheckoutMissing in
    an install, which has none."""
    return notebooks().parent / "learner"
