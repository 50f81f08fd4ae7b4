"""Scoring episodes: the checks of a world's tasks, run on a live episode or on a journal."""
