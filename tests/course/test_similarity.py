"""The similarity report: answer cells and written answers two students share are listed for
a person to read, whatever key each notebook holds; what was handed out, and a few words
anyone could write, are not."""

import re

import nbformat
import pytest

from ledgerlab.course.grading import similarity

from sentences import says

PAIRS = "## Pairs whose shared answers weigh most"
SOLVED = "history = [Turn('a', 'b'), Turn('c', 'd' * 99)]\nbudget = 200\npredicted_kept = 0\nq1.check(history, budget, predicted_kept)"


def notebook(key, source):
    cells = [nbformat.v4.new_code_cell(f"use_variant({key!r})"),
             nbformat.v4.new_code_cell(source, metadata={"ledgerlab": {"answer": "q1"}})]
    return nbformat.v4.new_notebook(cells=cells)


def test_a_copy_with_the_copiers_own_key_pasted_back_is_flagged():
    ada = similarity.answer_cells(notebook("0123456789abcdef", SOLVED))
    # Grace's copy: her own key, a comment of her own, other spacing; the same code.
    grace = similarity.answer_cells(notebook("fedcba9876543210",
                                             "# my work\n" + SOLVED.replace("\n", "   \n\n")))
    alan = similarity.answer_cells(notebook("00000000000000aa", SOLVED.replace("200", "201")))
    page = similarity.similarity_page([("ada.ipynb", ada), ("grace.ipynb", grace),
                                       ("alan.ipynb", alan)], [])
    # 2 of the 3 hold it: it weighs ln(3 / 2).
    assert "- exercise 1: alike in 2 submissions (weight 0.41): ` ada.ipynb `, ` grace.ipynb `" in page
    assert "alan" not in page
    assert "- ` ada.ipynb ` and ` grace.ipynb `: weight 0.41, 1 alike" in page


def test_cells_as_handed_out_and_short_written_answers_are_not_compared():
    stub = "history = ...          # a list of two Turn objects\nbudget = ...\nq1.check(history, budget)"
    cells = [(name, similarity.answer_cells(notebook("0123456789abcdef", stub)))
             for name in ("a.ipynb", "b.ipynb")]
    written = [("a.ipynb", {"06-3": "Backups."}), ("b.ipynb", {"06-3": "backups"}),
               ("c.ipynb", {"01-3": "The request is BUILT afresh, from the ledger."}),
               ("d.ipynb", {"01-3": "the request is built afresh from the ledger"})]
    page = similarity.similarity_page(cells, written)
    assert page.split("## Answer cells")[1].split("##")[0].strip() == "None alike."
    words = page.split("## Written answers")[1].split("## Pairs")[0]
    assert ("01-3: 01 · Storage vs context, question 3: alike in 2 submissions (weight 0.69): "
            "` c.ipynb `, ` d.ipynb `") in words
    assert "06-3" not in words


def class_of(count, source=SOLVED, prefix="s"):
    """``count`` submissions whose exercise 1 cells are all ``source``."""
    return [(f"{prefix}{number:04d}.ipynb", similarity.answer_cells(notebook("0123456789abcdef", source)))
            for number in range(count)]


def test_an_answer_the_whole_class_shares_is_one_line_and_pairs_no_one_while_a_copy_still_pairs():
    copied = SOLVED.replace("200", "333")
    pages = {}
    for count in (100, 200):
        copy = class_of(2, copied, prefix="copy")
        pages[count] = similarity.similarity_page(class_of(count) + copy, [])
    page = pages[200]
    cells = page.split("## Answer cells")[1].split("## Written answers")[0]
    assert cells.count("alike in 200 submissions (weight 0.01), an answer in common") == 1
    assert ("- exercise 1: alike in 2 submissions (weight 4.62): ` copy0000.ipynb `, "
            "` copy0001.ipynb `") in cells  # ln(202 / 2)
    pairs = page.split(PAIRS)[1].strip().splitlines()
    assert pairs == ["- ` copy0000.ipynb ` and ` copy0001.ipynb `: weight 4.62, 1 alike"]
    # Twice the class, about twice the page (each name once), not four times (every pair).
    assert len(pages[200]) < 2.1 * len(pages[100])


def test_the_pairs_shown_are_those_that_share_most_and_the_rest_are_counted():
    rings = []
    for ring in range(60):  # 60 rings of 3: 180 pairs, each sharing exercise 1
        source = SOLVED.replace("200", str(1000 + ring))
        rings += class_of(3, source, prefix=f"r{ring:02d}-")
    # One ring also shares its written answer: its 3 pairs share 2 and come first.
    written = [(name, {"01-3": "the request is built afresh from the ledger"})
               for name, _ in rings[3:6]]
    page = similarity.similarity_page(rings, written)
    pairs = page.split(PAIRS)[1].strip().splitlines()
    assert len(pairs) == similarity.MAX_PAIRS_SHOWN + 1
    # Each answer 3 of the 180 hold weighs ln(60) = 4.09; the ring that shares two, twice that.
    assert [line.endswith(": weight 8.19, 2 alike") for line in pairs[:4]] == [True, True, True, False]
    assert pairs[0] == "- ` r01-0000.ipynb ` and ` r01-0001.ipynb `: weight 8.19, 2 alike"
    assert pairs[3].endswith(": weight 4.09, 1 alike")
    assert pairs[-1] == (f"- and {180 - similarity.MAX_PAIRS_SHOWN} more pairs, each weighing "
                         f"4.09 or less (each is in a list above)")


def test_the_cells_are_read_once_from_a_generator():
    read = []

    def cells():
        for name in ("ada.ipynb", "grace.ipynb"):
            read.append(name)
            yield name, similarity.answer_cells(notebook("0123456789abcdef", SOLVED))

    page = similarity.similarity_page(cells(), [])
    assert read == ["ada.ipynb", "grace.ipynb"]
    assert "alike in 2 submissions (weight 0.00): ` ada.ipynb `, ` grace.ipynb `" in page


@pytest.mark.parametrize("call, argument", [
    (lambda: similarity.answer_cells([1]), "notebook"),
    (lambda: similarity.answer_cells(None), "notebook"),
    (lambda: similarity.similarity_page([1], []), "cells"),
    (lambda: similarity.similarity_page([("a.ipynb", {"q1": 1})], []), "cells"),
    (lambda: similarity.similarity_page([], [("a.ipynb", None)]), "written"),
    (lambda: similarity.similarity_page(None, []), "cells"),
    (lambda: similarity.similarity_page([], "ab"), "written"),
])
def test_a_wrong_type_is_a_type_error_naming_the_argument(call, argument):
    with pytest.raises(TypeError, match=f"\\b{argument}\\b"):
        call()


def test_a_cell_or_its_metadata_of_the_wrong_shape_is_skipped():
    found = {"cells": [1, {"cell_type": "code", "metadata": [1], "source": "x"},
                       {"cell_type": "code", "metadata": {"ledgerlab": {"answer": [1]}}, "source": "x"},
                       {"cell_type": "code", "metadata": {"ledgerlab": {"answer": "q1"}},
                        "source": "budget = 1"}]}
    assert similarity.answer_cells(found) == {"q1": "budget = 1"}


# --- Exercise order, and answers weighed by how unusual they are (issue 48) ---------------

def notebook_of(sources):
    """A notebook whose answer cells are ``sources``: {exercise name: code}."""
    cells = [nbformat.v4.new_code_cell(source, metadata={"ledgerlab": {"answer": name}})
             for name, source in sources.items()]
    return similarity.answer_cells(nbformat.v4.new_notebook(cells=cells))


def test_exercises_are_listed_in_their_order_not_as_text_sorts_them():
    """Before, the page listed exercises 1, 10, 11, 2."""
    sources = {name: f"answer_{name} = {number}" for number, name in
               enumerate(["q2", "q11", "q1", "q10"], start=500)}
    cells = [(name, notebook_of(sources)) for name in ("a.ipynb", "b.ipynb")]
    page = similarity.similarity_page(cells, [])
    listed = re.findall(r"^- exercise (\d+):", page, flags=re.MULTILINE)
    assert listed == ["1", "2", "10", "11"]


def test_a_copy_of_one_unusual_cell_outranks_honest_students_who_wrote_the_obvious_cells():
    """Ten honest students write the obvious code for exercises 1 to 5 (each exercise, one of
    them writes it their own way); two others write their own code there, and share one
    unusual cell for exercise 6. Before, the honest pairs came first, sharing 5 cells against
    the copy's 1."""
    obvious = {f"q{number}": f"answer = obvious_{number}()" for number in range(1, 6)}
    honest = []
    for student in range(10):
        sources = {name: (f"answer = my_way_{student}()" if name == f"q{student + 1}" else code)
                   for name, code in obvious.items()}
        honest.append((f"honest{student}.ipynb", notebook_of(sources)))
    copied = []
    for copier in ("copier1", "copier2"):
        sources = {name: f"answer = {copier}_{name}()" for name in obvious}
        sources["q6"] = "answer = sorted(set(x for x in range(7) if x % 3))[::-1][0]"
        copied.append((f"{copier}.ipynb", notebook_of(sources)))
    page = similarity.similarity_page(honest + copied, [])
    pairs = page.split(PAIRS)[1].strip().splitlines()
    # The copy: one cell 2 of the 12 hold, ln(6) = 1.79. The most honest pair: 5 cells 9 of
    # the 12 hold, 5 x ln(12 / 9) = 1.44.
    assert pairs[0] == "- ` copier1.ipynb ` and ` copier2.ipynb `: weight 1.79, 1 alike"
    assert pairs[1].endswith(": weight 1.44, 5 alike")
    says(page, "exercise", 1, "alike in", 9, "submissions", "weight", "0.29", in_order=True)
