"""The similarity report: answer cells and written answers two students share are listed for
a person to read, whatever key each notebook holds; what was handed out, and a few words
anyone could write, are not."""

import nbformat

from ledgerlab.course.grading import similarity

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
    assert "- exercise 1: alike in 2 submissions: ` ada.ipynb `, ` grace.ipynb `" in page
    assert "alan" not in page
    assert "- ` ada.ipynb ` and ` grace.ipynb `: 1 alike" in page


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
    assert "01-3: 01 · Storage vs context, question 3: alike in 2 submissions: ` c.ipynb `, ` d.ipynb `" in words
    assert "06-3" not in words
