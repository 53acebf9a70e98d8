from __future__ import annotations

import itertools
import warnings
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from socialbench.conversations.model import Node, Thread, ThreadIntegrityError, ThreadIntegrityWarning, utc


def t(minute: int) -> datetime:
    return datetime(2024, 1, 1, 0, minute, tzinfo=UTC)


def sample() -> Thread:
    #        r
    #      /   \
    #     a     b
    #    / \     \
    #   c   d     e
    #   |
    #   f
    spec = [
        ("r", None, "op", 0),
        ("a", "r", "ann", 1),
        ("b", "r", "bob", 2),
        ("c", "a", "bob", 3),
        ("d", "a", "op", 5),
        ("e", "b", "ann", 4),
        ("f", "c", "ann", 6),
    ]
    return Thread.build(
        [Node(id=i, parent_id=p, author=au, created=t(m)) for i, p, au, m in spec], id="x", platform="test"
    )


def ids(nodes: list[Node]) -> list[str]:
    return [n.id for n in nodes]


def test_tree_queries_read_like_the_domain() -> None:
    th = sample()
    assert th.root.id == "r"
    assert ids(th.children("a")) == ["c", "d"]
    assert ids(th.path_to_root("f")) == ["f", "c", "a", "r"]
    assert [th.depth(i) for i in "racf"] == [0, 1, 2, 3]
    assert ids(th.subtree("a")) == ["a", "c", "f", "d"]
    assert ids(th.chain("a", "f")) == ["a", "c", "f"]
    assert ids(th.chain("f", "e")) == ["f", "c", "a", "r", "b", "e"]
    assert ids(th.by_author("ann")) == ["a", "e", "f"]
    assert ids(th.root_replies()) == ["a", "b"]
    assert {k: ids(v) for k, v in th.branches().items()} == {"a": ["a", "c", "f", "d"], "b": ["b", "e"]}
    assert ids(list(th.traverse("thread"))) == ["r", "a", "c", "f", "d", "b", "e"]
    assert ids(list(th.traverse("time"))) == ["r", "a", "b", "c", "e", "d", "f"]
    assert th.max_depth() == 3
    assert th.depth_histogram() == {0: 1, 1: 2, 2: 3, 3: 1}
    assert th.participants() == ["op", "ann", "bob"]
    assert th.branch_of("f").id == "a"  # type: ignore[union-attr]
    sub = th.subthread("a")
    assert sub.root.id == "a" and len(sub) == 4 and sub.depth("f") == 2
    with pytest.raises(KeyError, match="no node 'zz'"):
        th.node("zz")


def test_siblings_with_equal_times_keep_source_order() -> None:
    nodes = [
        Node(id="r"),
        Node(id="z", parent_id="r", created=t(1)),
        Node(id="y", parent_id="r", created=t(1)),
    ]
    assert ids(Thread.build(nodes, id="x", platform="p").children("r")) == ["z", "y"]


def test_times_are_utc() -> None:
    assert utc(0) == datetime(1970, 1, 1, tzinfo=UTC)
    assert utc("2018-11-17T13:27:56.000Z") == datetime(2018, 11, 17, 13, 27, 56, tzinfo=UTC)
    assert utc("2011-10-11T19:42:20.713") == datetime(2011, 10, 11, 19, 42, 20, 713000, tzinfo=UTC)
    assert utc("1366044279.0") == datetime.fromtimestamp(1366044279, tz=UTC)
    assert Node(id="a", created="2020-01-01T02:00:00+02:00").created == datetime(2020, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("nodes", "root_id", "message"),
    [
        (
            [Node(id="r"), Node(id="a", parent_id="r"), Node(id="a", parent_id="r")],
            None,
            "duplicate node id 'a'",
        ),
        ([Node(id="r"), Node(id="a", parent_id="gone")], None, "replies to 'gone'"),
        ([Node(id="r"), Node(id="a", parent_id="b"), Node(id="b", parent_id="a")], None, "reply cycle"),
        ([Node(id="a", parent_id="r")], "r", "root 'r' is missing"),
        ([Node(id="r"), Node(id="s")], None, "has no parent but is not the root"),
        ([Node(id="r"), Node(id="a", parent_id="a")], None, "replies to itself"),
    ],
)
def test_integrity_policy(nodes: list[Node], root_id: str | None, message: str) -> None:
    with pytest.raises(ThreadIntegrityError, match=message):
        Thread.build(nodes, id="x", platform="p", root_id=root_id, policy="strict")
    with pytest.warns(ThreadIntegrityWarning):
        repaired = Thread.build(nodes, id="x", platform="p", root_id=root_id)
    assert any(message in r for r in repaired.repairs)
    # repaired threads are whole trees
    assert len(list(repaired.traverse())) == len(repaired)
    for node in repaired.nodes:
        assert repaired.path_to_root(node.id)[-1].id == repaired.root_id


def test_repairs_keep_the_original_parent() -> None:
    with pytest.warns(ThreadIntegrityWarning):
        th = Thread.build([Node(id="r"), Node(id="a", parent_id="gone")], id="x", platform="p")
    assert th.node("a").parent_id == "r" and th.node("a").meta["orphan_of"] == "gone"


def test_clean_threads_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sample().repairs == ()


# A random forest of parent pointers (possibly with orphans, cycles, duplicates) always builds into one tree.
raw_nodes = st.lists(
    st.tuples(st.integers(0, 30), st.one_of(st.none(), st.integers(0, 35)), st.integers(0, 50)),
    min_size=1,
    max_size=40,
)


@settings(max_examples=200, deadline=None)
@given(raw_nodes)
def test_repaired_threads_are_trees(spec: list[tuple[int, int | None, int]]) -> None:
    nodes = [Node(id=str(i), parent_id=None if p is None else str(p), created=t(m)) for i, p, m in spec]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ThreadIntegrityWarning)
        th = Thread.build(nodes, id="x", platform="p")
    order = list(th.traverse("thread"))
    assert sorted(ids(order)) == sorted(n.id for n in th.nodes)  # every node exactly once
    assert order[0].id == th.root_id and len(list(th.traverse("time"))) == len(th)
    position = {n.id: i for i, n in enumerate(order)}
    for node in th.nodes:
        path = th.path_to_root(node.id)
        assert path[-1].id == th.root_id
        assert th.depth(node.id) == len(path) - 1
        if node.parent_id is not None:
            assert position[node.parent_id] < position[node.id]  # parents come before replies
            assert th.is_ancestor(node.parent_id, node.id)
        sub = th.subtree(node.id)
        assert ids(sub) == ids(order[position[node.id] : position[node.id] + len(sub)])  # contiguous
    assert sum(th.depth_histogram().values()) == len(th)
    assert sum(len(b) for b in th.branches().values()) == len(th) - 1
    a, b = order[-1].id, order[len(order) // 2].id
    chain = th.chain(a, b)
    assert chain[0].id == a and chain[-1].id == b
    for x, y in itertools.pairwise(chain):
        assert x.parent_id == y.id or y.parent_id == x.id  # each step is one reply edge
