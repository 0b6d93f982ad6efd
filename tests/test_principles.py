"""The project's own rules, checked: the engine knows no game."""

import re

GAME_WORDS = re.compile(
    r"qwixx|level ?x|levelx|domino ?7|connect[ -]?four|oh[ -]?hell|tic[ -]?tac[ -]?toe",
    re.IGNORECASE)


def test_the_engine_names_no_game(root):
    hits = []
    for path in sorted((root / "rulekit").rglob("*")):
        if path.is_file() and path.suffix in (".py", ".lark", ".json"):
            for n, line in enumerate(path.read_text().splitlines(), 1):
                if GAME_WORDS.search(line):
                    hits.append(f"{path.relative_to(root)}:{n}: {line.strip()}")
    assert not hits, "rulekit/ must know no game:\n" + "\n".join(hits)
