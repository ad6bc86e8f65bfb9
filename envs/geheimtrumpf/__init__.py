"""Geheimtrumpf: rules (rules.py), observation encoding (encode.py), PettingZoo env (env.py)."""
