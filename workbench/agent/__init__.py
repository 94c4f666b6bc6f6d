"""Agent runs: the loop (loop.py), the tools an agent may call (toolspec.py,
workspace.py), prompts (prompts/*.j2), the agents (autotune.py, llm_agent.py,
replay.py, scripted.py), final scoring (scoring.py) and transcripts (transcript.py).
See README.md in this folder."""
