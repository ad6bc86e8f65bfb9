"""What all five games share: cards, the trick, rules protocol, AEC adapter, records."""
