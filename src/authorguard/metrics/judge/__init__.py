"""The learned consistency judge: a MiniLM cross-encoder that reads an (input sentence, output sentence) pair and
says whether the output is faithful, generalised or changed; and how its verdicts join the rule meter's."""
