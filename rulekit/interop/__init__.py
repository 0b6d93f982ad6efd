"""Adapters that make every rulekit game an environment of learning frameworks.

`rulekit.interop.openspiel` registers the OpenSpiel game `python_rulekit`;
`rulekit.interop.pettingzoo.env(file, players=...)` returns a PettingZoo AEC environment.
Both take their action ids and observation vectors from `encoding`. Each needs its
optional extra (`rulekit[openspiel]`, `rulekit[pettingzoo]`) and is imported on its own.
"""
