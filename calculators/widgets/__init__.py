"""Calculator widgets for the site: forms, static results and the browser's entry point.

One declaration per calculator (:mod:`~calculators.widgets.registry`) drives the form
(:mod:`~calculators.widgets.form`), the result's table and chart
(:mod:`~calculators.widgets.views`, :mod:`~calculators.widgets.render`), the Markdown
markers the build expands (:mod:`~calculators.widgets.markdown`) and the JSON calls the
browser's Pyodide worker makes (:mod:`~calculators.widgets.api`). Standard library only:
the same code renders the page at build time and recomputes it in the browser.
"""
