"""The table server and its web page (issue 13): ``create_app`` in ``app.py``, ``pontoon serve``."""
