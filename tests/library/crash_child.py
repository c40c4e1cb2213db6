"""A journal worker for the kill -9 trials in test_journal_crash.py.

    python crash_child.py commit LOG FIRST   commit t<FIRST>, t<FIRST+1>, ... forever
    python crash_child.py forget LOG         forget t0, t1, ... in order
    python crash_child.py retain LOG STEP    retain all but the oldest STEP, 2*STEP, ... turns
    python crash_child.py memory LOG OPS     run OPS (JSON: add_summary, drop_summary,
                                             forget, retain), acknowledging each by index
    python crash_child.py serve              each of those, once per line of stdin, forked

It prints each number only after the call returned: an acknowledgement.

``serve`` is how the trials run: it imports ledgerlab once, then for each line of stdin
(the arguments above, as a JSON list) forks a worker that runs them with this process's
stdout, so a trial does not start a new interpreter. The line ``kill`` then kills the
worker with SIGKILL. ``end`` follows the worker's last acknowledgement once it is gone,
killed or finished; the worker is reaped only after the kill, so its pid cannot have
been reused by then.
"""

import json
import os
import select
import signal
import sys
import traceback

from ledgerlab import Journal


def answer_for(number: int) -> str:
    # Sizes vary so that kills land inside short and long writes alike.
    return f"answer {number} " + "é接🙂\n\"" * (number % 40)


def facts_for(number: int) -> list[tuple[str, str]]:
    # 0, 1 or 2 facts pinned from turn t<number>: (id, text).
    return [(f"f{number}.{k}", f"fact {number}.{k} " + "接🙂" * (number % 7))
            for k in range(number % 3)]


def acknowledge(number: int) -> None:
    """Print ``number`` in one write: a kill cannot leave half a line for the next to join."""
    os.write(1, f"{number}\n".encode())


def work(mode: str, log: str, *rest: str) -> None:
    with Journal(log) as journal:
        if mode == "memory":
            for number, (op, *args) in enumerate(json.loads(rest[0])):
                if op == "add":
                    journal.add_summary(args[0], args[1], covers=args[2])
                elif op == "drop":
                    journal.drop_summary(args[0])
                elif op == "forget":
                    journal.forget(args[0])
                else:
                    journal.retain(last=args[0])
                acknowledge(number)
            return
        if mode == "commit":
            number = int(rest[0])
            while True:
                journal.commit(f"t{number}", f"question {number}", answer_for(number))
                acknowledge(number)
                number += 1
        if mode == "retain":
            step, turns = int(rest[0]), len(journal)
            for deleted in range(step, turns + 1, step):
                journal.retain(last=turns - deleted)
                acknowledge(deleted)
            return
        for number in range(len(journal)):
            journal.forget(f"t{number}")
            acknowledge(number)


def serve() -> None:
    while (line := _read_line()) is not None:
        alive, alive_writer = os.pipe()  # EOF on `alive` once the worker is gone
        pid = os.fork()
        if pid == 0:
            os.close(alive)
            code = 0
            try:
                work(*json.loads(line))
            except BaseException:
                traceback.print_exc()
                code = 1
            finally:
                os._exit(code)
        os.close(alive_writer)
        ended, watched = False, [0, alive]
        while True:
            ready, _, _ = select.select(watched, [], [])
            if alive in ready:  # finished or died on its own
                os.write(1, b"end\n")
                ended, watched = True, [0]
            if 0 in ready:
                assert _read_line() == "kill"
                os.kill(pid, signal.SIGKILL)  # not reaped yet: the pid is still the worker's
                os.waitpid(pid, 0)
                if not ended:
                    os.write(1, b"end\n")
                break
        os.close(alive)


def _read_line() -> str | None:
    """One line of stdin, read byte by byte so that nothing after it is taken."""
    data = b""
    while not data.endswith(b"\n"):
        byte = os.read(0, 1)
        if not byte:
            return None
        data += byte
    return data.decode().rstrip("\n")


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve()
    else:
        work(*sys.argv[1:])
