"""Part of the KernelCraft workbench TUI; see workbench/tui/README.md."""
