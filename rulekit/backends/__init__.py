"""The backends: lowerings of the checked tree and the game's flow into what runs."""
