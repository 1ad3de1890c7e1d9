"""The web face of the calculators: forms, the browser's entry point, links and copies.

The named calculators themselves (their inputs, their compute through the engine, their HTML,
text and data views) are declared once for every face in :mod:`calculators.jobs`. This package
keeps what only a web page needs: the form drawn from a calculator's fields
(:mod:`~calculators.widgets.form`, with the readable text of each choice from
:mod:`~calculators.widgets.fields`), the Markdown markers the build expands
(:mod:`~calculators.widgets.markdown`), the JSON calls the browser's Pyodide worker makes
(:mod:`~calculators.widgets.api`) and the "Copy result" record (:mod:`~calculators.widgets.share`).
Standard library only: the same code renders the page at build time and recomputes it in the browser.
"""
