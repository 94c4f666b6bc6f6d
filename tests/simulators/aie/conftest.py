"""Make aie_kit (the shared helpers of these tests) importable under any import mode."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
