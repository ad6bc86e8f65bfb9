"""The trainers, one algorithm a module: all-seat PPO on the batch engine (``ppo``), its
warm start (``pretrain`` on ``labels``' imitation data), expert iteration (``expert``,
``distil``, ``from_bot``) and Stable-Baselines3's MaskablePPO (``sb3``).  ``pipeline``
chains the batch trainer's stages (pretrain -> start -> expert -> PPO) for ``stichzoo
train``; ``critics`` is the table through which a critic apart from the policy (the lab's)
plugs into PPO.
"""
