"""Backends: lowerings of a checked game into something that runs.

The checker (rulekit.expr.check) turns each expression of a game file into a typed tree:
every name resolved, every type, method and constant decided. A backend only translates
that tree, and the game's flow, into code that runs: what a game file may do is decided
before it.

- `closures`: every checked node as a Python closure `fn(st, env)`, what the checker
  also runs to fold constant parts at load.
- `pysource`: the same values as Python source over the state, compiled into functions
  once when a game loads (its constants bound as globals, never written as text).
- `codegen`: the hot parts of a game (option generators, steps that only have effects,
  triggers, the checks after a step, defines) as generated functions written from the
  expressions' source, when the game loads (`rulekit compile FILE` shows them).
- `flowgen`: the turns of random play as generated functions, one per block of steps.
- `flat`: a game's whole random play as one generated function over plain lists and
  ints (the components' lists, the players' variables), where it covers the game;
  `rulekit compile --backend flat FILE` shows it or says why not.
"""
