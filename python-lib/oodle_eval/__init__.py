"""oodle_eval: the Python library of Oodle code evaluators. The stable API is ``oodle_eval.v1``."""
