"""Benchmarks of rulekit and the hand-written games it is measured against."""
