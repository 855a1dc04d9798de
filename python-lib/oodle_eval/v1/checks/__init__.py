"""One check per file; oodle_eval.v1.metrics re-exports them."""
