"""The worked solutions run as a graded notebook runs them, on a variant."""

import ledgerlab
from ledgerlab.course import exercises, fixtures
from ledgerlab.course.exercises import EXERCISES, active, use_variant


def solve(v):
    """Every worked solution run in order in one namespace, as the graded notebook runs them;
    returns each exercise's answers. The variant in use before is in use after."""
    before = active()
    use_variant(v.key)
    namespace = {name: getattr(ledgerlab, name) for name in ledgerlab.__all__}
    namespace.update({name: getattr(exercises, name) for name in exercises.__all__},
                     fixtures=fixtures)
    for exercise in EXERCISES:
        *body, _ = exercise.solution_code.splitlines()
        exec("\n".join(body), namespace)
    use_variant(before.key)
    return {e.name: tuple(namespace[a] for a in e.answers) for e in EXERCISES}
