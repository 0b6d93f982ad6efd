"""Backends: lowerings of a checked game into something that runs.

The checker (rulekit.expr.check) turns each expression of a game file into a typed tree:
every name resolved, every type, method and constant decided. A backend only translates
that tree, and the game's flow, into code; it decides nothing a game file could change.

- `closures`: every checked node as a Python closure `fn(st, env)`, what the checker
  also runs to fold constant parts at load.
- `pysource`: the same values as Python source over the state, compiled into functions
  once when a game loads (its constants bound as globals, never written as text).
- `flat` (to come): the state as plain ints and lists, for playouts, copies and search.
"""
