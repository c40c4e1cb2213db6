"""One module per lesson: its questions, quiz, explorer settings and exercise, each named for
the lesson it belongs to (``storage_vs_context`` is notebook 01's)."""
