"""The graded edition: a student notebook without solutions, and an autograder.

One job per module, in the order a teacher meets them:

- ``editions``: the student's and the teacher's copy of the exercises, the generated
  11-solutions notebook, and the assignment folder built from them;
- ``roster``: a class's names, each student's variant key, and where each is filed;
- ``sandbox``: each submission run in bubblewrap, handing back only its answers;
- ``answers``: those answers' plain-data format, written in the kernel, read here;
- ``judge``: the verdicts, by the learner's own checks, on what came back;
- ``reports``: grades.csv, a feedback page per submission, a summary, and the answers in
  words (``ledgerlab.course.written``);
- ``cli``: ``python -m ledgerlab.course.grading assignment | grade | solutions``.

Nothing is imported here: the student's kernel imports ``answers`` alone.
"""
