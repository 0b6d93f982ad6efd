"""Rule tests that designers write in YAML (`NAME.tests.yaml` beside `NAME.yaml`).

`suite` reads and checks a tests file, `runner` plays its scenarios against the game and
reports every expectation that does not hold, `record` writes a played game as a
scenario. The format is described in docs/tests.md.
"""

from rulekit.scenarios.runner import Outcome, run_suite
from rulekit.scenarios.suite import Scenario, Suite, load_suite

__all__ = ["Outcome", "Scenario", "Suite", "load_suite", "run_suite"]
