"""What all five games share: cards, the trick, the rules-core protocol, the AEC adapter, records."""
