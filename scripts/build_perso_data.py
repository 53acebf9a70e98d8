"""Rebuild the PerSo threads the package ships from the real files in ../shared/data (run from the project root).

src/socialbench/benchmarks/perso/data/threads.jsonl.gz = every original post of the Winning Arguments heldout
pair file (Tan et al., WWW 2016; its authors ask to be cited, see data/README.md) and every r/ChangeMyView exchange
of the delta-labelled XML files, as conversation-model threads. Nothing is filtered here: the construction rules
run at load time, so their counts are always reported.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

from socialbench.conversations.sources import read_cmv, read_cmv_pairs
from socialbench.conversations.store import write_episodes

DATA = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/data")
OUT = Path("src/socialbench/benchmarks/perso/data/threads.jsonl.gz")


def main() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # cmv/negative/test.xml is recovered with a warning (docs/perso.md)
        threads = [*read_cmv_pairs(DATA / "cmv_pairs/heldout_pair_data.jsonlist.bz2"), *read_cmv(DATA / "cmv")]
    ids = [t.id for t in threads]
    clashes = {i for i in ids if ids.count(i) > 1}
    if clashes:
        raise SystemExit(f"thread ids in both sources: {sorted(clashes)[:5]}")
    count = write_episodes(OUT, threads)
    print(f"wrote {count} threads to {OUT} ({OUT.stat().st_size / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
