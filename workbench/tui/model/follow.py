"""Following a run in the trace store as another process writes it: each poll reads
only the events after the last one seen (`events(after_seq=...)`), so a poll costs
what is new, and the run record for its status and totals."""
from __future__ import annotations

import time
from dataclasses import dataclass

from kernelcraft.workbench.store import Event, Run

from .source import StoreReader


@dataclass
class Poll:
    run: Run
    events: list[Event]
    at: float                  # time.monotonic() of the poll
    more: bool = False         # events are waiting beyond this poll's limit

    @property
    def complete(self) -> bool:
        """The run has ended and every one of its events has been read."""
        return self.run.finished and not self.more


class Follower:
    """Reads a run's new events, at most `limit` per poll (so a long run is shown
    after its first events are read, and the rest follows)."""

    def __init__(self, reader: StoreReader, run_id: int, after_seq: int = -1,
                 limit: int | None = None):
        self.reader, self.run_id, self.last_seq, self.limit = reader, run_id, after_seq, limit

    def poll(self) -> Poll:
        # Events first, then the run: a run seen finished here has nothing beyond
        # event_count, so comparing the two says whether anything is left to read.
        events = self.reader.events(self.run_id, after_seq=self.last_seq, limit=self.limit)
        run = self.reader.run(self.run_id)
        if events:
            self.last_seq = events[-1].seq
        more = self.last_seq < run.event_count - 1
        return Poll(run, events, time.monotonic(), more)
