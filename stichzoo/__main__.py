"""``python -m stichzoo``: the ``stichzoo`` command."""

import sys

from stichzoo.training.cli import main

sys.exit(main())
