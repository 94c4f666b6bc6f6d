"""The KernelCraft terminal workbench (Textual): run picker, run view with live
following and replay, and the kernel debugger. See README.md in this folder."""
