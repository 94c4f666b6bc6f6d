"""Following a run in the trace store as another process writes it: each poll reads
only the events after the last one seen (`events(after_seq=...)`), so a poll costs
what is new, and the run record for its status and totals."""
from __future__ import annotations

import time
from dataclasses import dataclass

from workbench.store import Event, Run

from .source import StoreReader


@dataclass
class Poll:
    run: Run
    events: list[Event]
    at: float                  # time.monotonic() of the poll


class Follower:
    def __init__(self, reader: StoreReader, run_id: int, after_seq: int = -1):
        self.reader, self.run_id, self.last_seq = reader, run_id, after_seq

    def poll(self) -> Poll:
        # Events first, then the run: a run seen finished has all its events read.
        events = self.reader.events(self.run_id, after_seq=self.last_seq)
        run = self.reader.run(self.run_id)
        if run.finished and run.event_count - 1 > (events[-1].seq if events else self.last_seq):
            events += self.reader.events(self.run_id, after_seq=events[-1].seq if events
                                         else self.last_seq)
        if events:
            self.last_seq = events[-1].seq
        return Poll(run, events, time.monotonic())
