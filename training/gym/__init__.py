"""The Gymnasium, Stable-Baselines3 and vector faces of the games: single-seat views,
vector envs over the batch engine, and their Gymnasium ids.
"""
