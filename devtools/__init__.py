"""Test and development doubles; never part of a production deployment.

`devtools.fake_openai` is plain Python (no Django): tests import it, and `python -m devtools.fake_openai`
serves it. The Django app (its `fake_openai_server` command) is installed only by the test settings and
when MEDREVIEW_DEV_TOOLS=1 (as `dev.py demo` sets).
"""
