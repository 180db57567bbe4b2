#!/usr/bin/env python3
"""Checks a dri-bench JSON document: usage check_json.py FILE RUNS.
Every run has every method with the required statistics, and the command
line is recorded; prints "json ok"."""
import json
import sys

doc = json.load(open(sys.argv[1]))
runs = doc["runs"]
assert len(runs) == int(sys.argv[2]), f"{len(runs)} runs"
assert doc["command"] and doc["command_line"].startswith(doc["command"][0])
for key in ("mpi", "ranks", "nodes", "ranks_per_node", "buffers", "memory", "reps"):
    assert key in doc, key
for run in runs:
    names = [m["name"] for m in run["methods"]]
    assert "expert_pack_alltoallv" in names and "dri_p2p" in names, names
    assert not run["wrong_data"]
    for m in run["methods"]:
        for key in ("median_s", "min_s", "p90_s", "p99_s", "max_s", "jitter", "gbps",
                    "ratio_vs_best_baseline", "first_s", "setup_s", "heap_bytes", "rss_bytes"):
            assert key in m, (m["name"], key)
        assert 0 < m["min_s"] <= m["median_s"] <= m["p90_s"] <= m["p99_s"] <= m["max_s"], m["name"]
        assert len(m["times_s"]) == doc["reps"]
print("json ok")
