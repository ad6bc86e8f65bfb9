"""Moved: the network classes live in :mod:`stichzoo.policies.networks` (a bot needs them).

This alias keeps old references working: SB3 checkpoints (``model_*.zip``)
pickle their policy class by this path, and user code may import it.
"""

from stichzoo.policies.networks import (
    MlpExtractor,
    PhaseMlpExtractor,
    PhaseTrunkPolicy,
    policy_setup,
)

__all__ = ["MlpExtractor", "PhaseMlpExtractor", "PhaseTrunkPolicy", "policy_setup"]
