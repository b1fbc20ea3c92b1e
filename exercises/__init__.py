"""The lab's exercises: starter files a student edits, each with a check that proves it.

Run `python -m exercises` from the lab's root folder; see exercises/README.md.
"""
