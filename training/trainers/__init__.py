"""The trainers: all-seat PPO on the batch engine (``ppo``), its warm start
(``pretrain``, imitation ``labels``), expert iteration (``expert``, ``distil``, ``from_bot``)
and Stable-Baselines3's MaskablePPO (``sb3``).
"""
