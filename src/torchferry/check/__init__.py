"""``ferry check``: a fast static checker for the device mistakes the lessons warn about.

Nothing in this package imports torch: the checker reads source with the
standard library's ``ast`` only.
"""
