"""One module per lesson: its questions, quiz, explorer settings and exercise, each named for
the lesson it belongs to (``prompt_caching`` is notebook 12's). What a lesson measures is
computed from the library when it is asked, never typed in; its figures are drawn by the
course's chart modules, and its explorer is one of ``widgets``, so nothing here draws.
"""
