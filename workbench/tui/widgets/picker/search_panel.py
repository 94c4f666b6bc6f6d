"""Full-text search over every run's messages and kernels (the store's FTS5 index):
a query box and the hits, best first; choosing a hit opens its run at that event."""
from __future__ import annotations

from rich.text import Text
from textual import on
from textual.containers import Vertical
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from kernelcraft.workbench.store import SearchHit

from ...messages import OpenRun


def hit_line(hit: SearchHit) -> Text:
    t = Text(no_wrap=True, overflow="ellipsis")
    t.append(f"run {hit.run_id:>4} seq {hit.seq:>5} ", "bold")
    t.append(f"{'kernel' if hit.kind == 'kernel' else hit.event_type:<11} ", "cyan")
    snippet = " ".join(hit.snippet.split())
    # the store marks matches with [ and ]
    parts = snippet.replace("]", "[").split("[")
    for i, part in enumerate(parts):
        t.append(part, "bold yellow" if i % 2 else "")
    return t


class SearchPanel(Vertical):
    def compose(self):
        yield Input(placeholder="search messages and kernels (words; Enter searches, "
                                "Esc closes)", id="search-input")
        yield OptionList(id="search-hits")

    def show_hits(self, hits: list[SearchHit]) -> None:
        self.hits = hits
        hits_list = self.query_one("#search-hits", OptionList)
        hits_list.clear_options()
        hits_list.add_options([Option(hit_line(h)) for h in hits] or
                              [Option(Text("no match", "grey50 italic"), disabled=True)])
        if hits:
            hits_list.highlighted = 0

    @on(OptionList.OptionSelected, "#search-hits")
    def _open(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        hits = getattr(self, "hits", [])
        if 0 <= event.option_index < len(hits):
            h = hits[event.option_index]
            self.post_message(OpenRun(h.run_id, h.seq))
