"""KernelCraftApp: the terminal workbench.

Screens: the run picker (screens/picker.py), one run (screens/run.py), the kernel
debugger (screens/debugger.py), and the help, new-run and too-small screens. The
trace store is only ever read (model/source.py); runs started here are separate
processes that write it themselves (model/launch.py). Every screen's bindings are
also commands in the palette (ctrl+p), listed on the help screen (?), and can be
remapped by id with a keymap file.
"""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import tomllib
from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from .keys import all_ids, bindings
from .messages import Deliver, OpenRun, deliver
from .model.debugger import DEFAULT_MAX_STEPS
from .model.launch import Launched, RunRequest, launch
from .model.source import StoreReader
from .screens.picker import PickerScreen
from .screens.run import RunScreen
from .screens.too_small import TooSmallScreen

MIN_SIZE = (80, 24)
LAUNCH_TIMEOUT = 120.0       # seconds a started process may take to record its run


class KeymapError(ValueError):
    """A keymap file is unreadable or names a binding that does not exist."""


def all_binding_ids() -> set[str]:
    """Every binding id of every screen (keys.toml)."""
    return all_ids()


def load_keymap(path: str | Path) -> dict[str, str]:
    """A TOML file of binding id = "keys" (comma-separated), checked against the
    bindings that exist."""
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise KeymapError(f"keymap {p}: cannot read it ({e.strerror})") from None
    except tomllib.TOMLDecodeError as e:
        raise KeymapError(f"keymap {p}: not valid TOML ({e})") from None
    known = all_binding_ids()
    bad = [k for k in data if k not in known]
    if bad:
        raise KeymapError(f"keymap {p}: unknown binding id(s) {', '.join(sorted(bad))}; the "
                          f"help screen (?) lists every id")
    wrong = [k for k, v in data.items() if not isinstance(v, str) or not v.strip()]
    if wrong:
        raise KeymapError(f"keymap {p}: {', '.join(wrong)} must map to keys as a string, "
                          f"e.g. \"n,right\"")
    return dict(data)


class KernelCraftApp(App):
    CSS_PATH = "app.tcss"
    TITLE = "KernelCraft"
    BINDINGS = bindings("app")

    def __init__(self, traces: str | Path | None = None, *, run_id: int | None = None,
                 request: RunRequest | None = None, keymap: dict[str, str] | None = None,
                 poll_seconds: float = 0.15, max_steps: int = DEFAULT_MAX_STEPS,
                 stop_launched_on_exit: bool = False, debug: Screen | None = None):
        """`debug`: open only this debugger screen (`kernelcraft debug`); leaving it quits."""
        super().__init__()
        self.debug_screen = debug
        self.reader = StoreReader(traces)
        self.initial_run = run_id
        self.initial_request = request
        self.keymap = keymap or {}
        self.poll_seconds = poll_seconds
        self.max_steps = max_steps
        self.stop_launched_on_exit = stop_launched_on_exit
        self.run_order: list[int] = []
        self.launched: list[Launched] = []
        self._watching = False
        self._started = False           # resizes before the first screen are ignored

    def on_mount(self) -> None:
        if self.keymap:
            self.set_keymap(self.keymap)
        if self.debug_screen is not None:
            self.push_screen(self.debug_screen)
            self._started = True
            self._check_size()
            return
        self.push_screen(PickerScreen())
        if self.initial_run is not None:
            self.push_screen(RunScreen(self.initial_run))
        if self.initial_request is not None:
            self.launch_run(self.initial_request)
        self.set_interval(0.25, self._watch_launches)
        self._started = True
        self._check_size()

    # ---------------------------------------------------------------- size
    def on_resize(self, event) -> None:
        if self._started:
            self._check_size(event.size.width, event.size.height)

    def _check_size(self, w: int | None = None, h: int | None = None) -> None:
        if w is None or h is None:
            w, h = self.size
        small = w < MIN_SIZE[0] or h < MIN_SIZE[1]
        top = self.screen
        if small:
            if not isinstance(top, TooSmallScreen):
                screen = TooSmallScreen()
                self.push_screen(screen)
                self.call_after_refresh(screen.show, w, h, MIN_SIZE)
            else:
                top.show(w, h, MIN_SIZE)
        elif isinstance(top, TooSmallScreen):
            self.pop_screen()

    # ---------------------------------------------------------------- runs
    @on(Deliver)
    def _deliver(self, message: Deliver) -> None:
        message.callback(*message.args, **message.kwargs)

    @on(OpenRun)
    def _open_run(self, message: OpenRun) -> None:
        self.push_screen(RunScreen(message.run_id, message.seq))

    def launch_run(self, request: RunRequest | None) -> None:
        """Start `request` in the background; its run opens live once recorded."""
        if request is None:
            return
        problem = self.reader.problem
        if problem is not None and problem.kind != "missing":
            self.notify(f"not starting a run: {problem.message}", severity="error", timeout=10)
            return
        try:
            launched = launch(request, self.reader.path)
        except OSError as e:
            self.notify(f"could not start {request.describe()}: {e}", severity="error")
            return
        self.launched.append(launched)
        self.notify(f"started {request.describe()} in the background (pid {launched.pid}); "
                    f"it opens when its first step is recorded", timeout=5)

    def _watch_launches(self) -> None:
        if not self._watching and any(x.run_id is None for x in self.launched):
            self._watching = True
            self._find_launched_runs()

    @work(thread=True, group="launches")
    def _find_launched_runs(self) -> None:
        import time
        try:
            self._look_for_launched_runs(time.monotonic())
        finally:
            self._watching = False

    def _look_for_launched_runs(self, now: float) -> None:
        waiting = [x for x in self.launched if x.run_id is None]
        runs = []
        if self.reader.open():
            try:
                runs = [row.run for row in self.reader.runs()]
            except Exception:  # noqa: BLE001 -- the picker reports store problems
                runs = []
        for x in waiting:
            run_id = x.find_run(runs)
            if run_id is not None:
                deliver(self, self._launched_run_found, x)
            elif x.failure():
                self.launched.remove(x)
                deliver(self, self.notify, x.failure() or "", title="run not started",
                                      severity="error", timeout=15)
            elif now - x.started > LAUNCH_TIMEOUT:
                self.launched.remove(x)
                deliver(self, self.notify, f"{x.request.describe()} recorded no run in "
                                      f"{LAUNCH_TIMEOUT:g}s; see {x.log}", severity="error")

    def _launched_run_found(self, launched: Launched) -> None:
        self.notify(f"{launched.request.describe()} is run {launched.run_id}", timeout=3)
        self.push_screen(RunScreen(launched.run_id, launched=True))

    def on_unmount(self) -> None:
        if self.stop_launched_on_exit:
            for x in self.launched:
                x.stop()
        self.reader.close()

    # ---------------------------------------------------------------- help
    def action_help(self) -> None:
        from .screens.help import HelpScreen
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Every binding of the current screen as a palette command, then Textual's."""
        for b in type(screen).BINDINGS:
            if isinstance(b, Binding) and b.description:
                help_text = b.tooltip or f"key: {b.key}"
                yield SystemCommand(b.description, help_text,
                                    lambda action=b.action, s=screen: s.run_action(action))
        yield from super().get_system_commands(screen)
