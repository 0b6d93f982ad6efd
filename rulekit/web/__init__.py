"""The browser app of `rulekit serve` (the optional extra `web`: Starlette and uvicorn).

`app.py` holds the routes, `tables.py` the games in progress, `store.py` their SQLite
store, `pages.py` the HTML, `static/` the script and style sheet (no build step).
"""

from __future__ import annotations

from pathlib import Path

from rulekit.files import shipped_games


def game_files(files: list[str]) -> dict[str, str]:
    """The games to serve by key (a file's name without `.yaml`, made unique): the files
    given, or every shipped game when none is."""
    if not files:
        return {key: str(path) for key, path in shipped_games().items()}
    out: dict[str, str] = {}
    for file in files:
        stem = Path(file).stem
        key, k = stem, 2
        while key in out:
            key, k = f"{stem}-{k}", k + 1
        out[key] = file
    return out


def serve(files: dict[str, str], host: str, port: int, db: str) -> None:
    """Run the app until Ctrl-C."""
    import uvicorn

    from rulekit.web.app import create_app

    # open pages keep event streams: a stop waits for them a moment only
    uvicorn.run(create_app(files, db), host=host, port=port, log_level="warning",
                timeout_graceful_shutdown=2)
