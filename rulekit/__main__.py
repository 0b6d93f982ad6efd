"""`python -m rulekit`: the same command as `rulekit`."""

from rulekit.cli import main

main(prog_name="rulekit")
