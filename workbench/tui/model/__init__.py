"""What the workbench UI shows, computed without any UI: runs and their steps, kernels
(highlighting, diffs), error heat maps, value formats, the kernel debugger, background
runs. Nothing here imports textual (a test checks), so each part can be tested and
benchmarked on its own."""
