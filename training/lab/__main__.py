"""``python -m stichzoo.training.lab``: the ``stichzoo`` command with the lab joined.

    python -m stichzoo.training.lab fit belief wizard --config configs/lab/belief/wizard.yaml
    python -m stichzoo.training.lab fit standing silberne_ananas
    python -m stichzoo.training.lab eval wizard --policies pimc:belief=wizard pimc

Every subcommand is the product's (:func:`stichzoo.training.cli.main`); importing the
lab's two packages first registers what the product leaves out - the lab's policy
options (``pimc:belief=``, ``pimc:standing=``, ...: ``stichzoo.policies.lab``), its
fitters and its critic (``stichzoo.training.lab``) - so a lab lever runs from the one
command line the product has, and the product never imports the lab.
"""

import sys

import stichzoo.policies.lab  # registers the lab's policy options
import stichzoo.training.lab  # noqa: F401 - registers the lab's fitters and critic
from stichzoo.training.cli import main

if __name__ == "__main__":
    sys.exit(main(prog="python -m stichzoo.training.lab"))
