"""The build step that ships the games: `games/*.yaml` and `games/examples/*.yaml`
(their source in the repository) are copied into the package as `rulekit/games/`, where
an installed rulekit finds them by name (`rulekit play qwixx`, `rulekit play pig`).
Everything else is in pyproject.toml."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithGames(build_py):
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "rulekit" / "games"
        self.mkpath(str(target))
        source = Path(__file__).resolve().parent / "games"
        for folder in (".", "examples"):
            self.mkpath(str(target / folder))
            for game in sorted((source / folder).glob("*.yaml")):
                self.copy_file(str(game), str(target / folder / game.name))


setup(cmdclass={"build_py": BuildWithGames})
