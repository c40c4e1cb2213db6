"""The graded edition: a student notebook without solutions, and an autograder.

One job per module, in the order a teacher meets them:

- ``editions``: the student's and the teacher's copy of the exercises, and the assignment
  folder built from them (the 14-solutions notebook is the maintainer's
  ``tools/write_solutions.py``);
- ``roster``: a class's names, each student's variant key, and where each is filed;
- ``sandbox``: each submission run in bubblewrap, handing back only its answers, and the
  time limits it runs under;
- ``answers``: those answers' plain-data format, written in the kernel, read here;
- ``judge``: the verdicts, by the learner's own checks, on what came back, each
  submission's as a ``graded.Graded``;
- ``reports``: grades.csv, a feedback page per submission, a summary, and the answers in
  words (read by ``ledgerlab.course.written``);
- ``cli``: ``python -m ledgerlab.course.grading assignment | grade``.

Nothing is imported here: the student's kernel imports ``answers`` alone.
"""
