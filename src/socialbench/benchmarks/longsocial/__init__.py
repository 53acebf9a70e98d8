"""LongSocialBench (Liu et al., 2026): multiple-choice social reading over complete discussion threads."""
