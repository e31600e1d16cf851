"""Consistency metrics, correctness criteria and the paper's release format, on plain data.

Nothing here imports Django: the functions take lists, dicts and dataclasses so they run in
benchmarks, notebooks and the import command alike.
"""
