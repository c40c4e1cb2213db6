"""Commits turns forever and acknowledges each one on stdout after commit returns.

Run by test_journal_crash.py, which kills it with SIGKILL at random moments.
Usage: python crash_child.py LOG FIRST_ID
"""

import sys

from ledgerlab import Journal


def answer_for(number: int) -> str:
    # Sizes vary so that kills land inside short and long writes alike.
    return f"answer {number} " + "é接🙂\n\"" * (number % 40)


def main() -> None:
    log, first = sys.argv[1], int(sys.argv[2])
    with Journal(log) as journal:
        number = first
        while True:
            journal.commit(f"t{number}", f"question {number}", answer_for(number))
            print(number, flush=True)
            number += 1


if __name__ == "__main__":
    main()
