"""Results kept by value: the request's fixed input is checked and written once.

A tool loop sends the same tools, the same current question and most of the same steps
request after request, and every value they are made of is frozen (``Tool``, the steps,
``Image``, str), so what a pure function makes of them can be kept and given again for
an equal value, as ``RequestWriter`` keeps each tool's entry. What is made from one stored
value (a turn's bytes for a writer, its tokens for a counter) is kept on the value itself
(``kept_on``), for as long as the value lives.

``functools.lru_cache`` serves where every argument is hashable (a writer's tool entries);
``remembered`` where a caller may pass a list, which lru_cache would refuse.
"""

from __future__ import annotations

import functools
import threading

RECENT = 16  # how many latest arguments each function keeps: a few tool loops (a kept
# question may hold images: few are kept)


def remembered(function, maxsize: int = RECENT):
    """``function`` (pure, of immutable values) with its latest ``maxsize`` results kept
    by their arguments (positional only; the oldest goes first). Where the arguments make
    no key (a list, a value of the wrong type) it is called anew, so its own checks name
    what is wrong."""
    kept: dict = {}
    evicting = threading.Lock()  # reads need none: one dict lookup is atomic

    def call(*args):
        try:
            return kept[args]
        except KeyError:
            pass
        except Exception:  # no key of these (unhashable, or a value made without its checks)
            return function(*args)
        result = function(*args)
        with evicting:
            if len(kept) >= maxsize:
                del kept[next(iter(kept))]
            kept[args] = result
        return result

    return functools.update_wrapper(call, function)


def kept_on(value, owner, make):
    """``make(value)``, made once and kept in ``value._pieces`` under ``owner`` (a writer or a
    counter); ``value`` is a Turn, Summary or Evidence: frozen, and all in it immutable."""
    pieces = getattr(value, "_pieces", None)
    if pieces is None:  # made without its own checks (object.__new__): nothing kept
        return make(value)
    piece = pieces.get(owner)
    if piece is None:
        piece = pieces[owner] = make(value)
    return piece
