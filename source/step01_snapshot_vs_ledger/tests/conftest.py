"""Put the step folder first on sys.path, so tests import its modules by bare name."""

import sys
from pathlib import Path

STEP = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(STEP))
