"""Make the shared helpers of these tests (coral_kit, corpus) importable under any
pytest import mode."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
