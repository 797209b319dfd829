"""``toolatlas check``: a regression gate between two versions of a catalog (see :mod:`core.check.service`).

``inputs`` resolves BASE and NEW, ``changes`` / ``overlaps`` / ``regressions`` / ``docs`` find what changed,
``service.run_check`` returns the frozen :class:`~core.check.service.CheckResult`, ``summary`` and ``report``
render it as text, Markdown and a self-contained HTML file.
"""
