"""Balance studies: many bot games of a game file, summarised with 95% intervals.

- `play`: one game of a study (its seeds, seating and record);
- `runner`, `cluster`: where the games run (this process, local processes, Dask);
- `stats`: streaming figures with intervals;
- `simulate`, `compare`, `sweep`: the studies; `text`, `plot`: their reports;
- `command`: what the three commands share on the command line.
"""
