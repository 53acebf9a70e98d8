"""The shared layer: what every benchmark uses and no benchmark owns (statistics, answer reading, judging,
embeddings, the benchmark plug-in shape). It imports no benchmark."""
