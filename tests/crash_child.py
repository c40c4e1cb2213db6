"""A journal worker for the kill -9 trials in test_journal_crash.py.

    python crash_child.py commit LOG FIRST   commit t<FIRST>, t<FIRST+1>, ... forever
    python crash_child.py forget LOG         forget t0, t1, ... in order
    python crash_child.py retain LOG STEP    retain all but the oldest STEP, 2*STEP, ... turns

It prints each number only after the call returned: an acknowledgement.
"""

import sys

from ledgerlab import Journal


def answer_for(number: int) -> str:
    # Sizes vary so that kills land inside short and long writes alike.
    return f"answer {number} " + "é接🙂\n\"" * (number % 40)


def facts_for(number: int) -> list[tuple[str, str]]:
    # 0, 1 or 2 facts pinned from turn t<number>: (id, text).
    return [(f"f{number}.{k}", f"fact {number}.{k} " + "接🙂" * (number % 7))
            for k in range(number % 3)]


def main() -> None:
    mode, log = sys.argv[1], sys.argv[2]
    with Journal(log) as journal:
        if mode == "commit":
            number = int(sys.argv[3])
            while True:
                journal.commit(f"t{number}", f"question {number}", answer_for(number))
                print(number, flush=True)
                number += 1
        if mode == "retain":
            step, turns = int(sys.argv[3]), len(journal)
            for deleted in range(step, turns + 1, step):
                journal.retain(last=turns - deleted)
                print(deleted, flush=True)
            return
        for number in range(len(journal)):
            journal.forget(f"t{number}")
            print(number, flush=True)


if __name__ == "__main__":
    main()
