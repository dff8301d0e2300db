"""The transformer attributor: all-MiniLM-L6-v2 fine-tuned as a sequence classifier of authors (the offline
stand-in for TAROT's DeBERTa-v3 attackers). :mod:`.config` holds its hyper-parameters, :mod:`.trainer` fine-tunes
it and scores documents; :class:`authorguard.attacks.transformer.TransformerAttacker` is the registered attacker."""
