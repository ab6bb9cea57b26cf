"""Calibration rounds: items with a known answer that train and admit raters (never in agreement
reports). The expected answer after each calibration item, each rater's agreement, admission by an
admin or a threshold, and the import of expected answers.
"""
