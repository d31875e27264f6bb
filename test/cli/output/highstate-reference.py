"""
Makes highstate-reference.json: what a real Salt 3007.10's highstate and nested outputters print
(salt.output.out_format) for state returns of the corpus (../shared/salt-states) and a few others,
with and without colour, in several state_output modes. Durations are set to non-integral values
so that JavaScript's numbers print them as Python does.

    PYTHONPATH=<salt-ref>/src:<salt-ref>/deps:<salt-ref>/pylib python3 -P -s \
        test/cli/output/highstate-reference.py ../shared/salt-states/cases > test/cli/output/highstate-reference.json

(<salt-ref> as made by ../shared/salt-ref/setup.sh.)
"""
import copy
import json
import sys

import salt.config
import salt.output

cases_dir = sys.argv[1]


def corpus(name):
    with open(f"{cases_dir}/{name}/out.json") as f:
        data = json.load(f)
    for ret in data["local"].values() if isinstance(data["local"], dict) else []:
        if "duration" in ret:
            ret["duration"] = 1.25
    return data


states93 = corpus("93-output-options")
rows = []
for mode in ["full", "terse", "mixed", "changes", "full_id", "terse_id", "mixed_id", "changes_id"]:
    rows.append({"name": f"93 {mode} colour", "data": states93, "state_output": mode, "color": True})
rows.append({"name": "93 verbose false colour", "data": states93, "state_verbose": False, "color": True})
rows.append({"name": "93 full plain", "data": states93, "color": False})
rows.append({"name": "15 warnings colour", "data": corpus("15-test-states"), "color": True})
rows.append({"name": "15 warnings terse colour", "data": corpus("15-test-states"), "state_output": "terse", "color": True})
rows.append({"name": "64 test=True colour", "data": corpus("64-testtrue-highstate"), "color": True})
rows.append({"name": "65 compile error colour", "data": corpus("65-err-yaml-syntax"), "color": True})
rows.append({"name": "55 no top colour", "data": corpus("55-highstate-no-top"), "color": True})
batch = {
    "retcode": 0,
    "jid": "20261203181001123456",
    "vec1": {
        "test_|-a_|-a_|-nop": {
            "name": "a", "changes": {}, "result": True, "comment": "Success!", "__sls__": "x",
            "__run_num__": 0, "start_time": "18:10:01.000001", "duration": 0.5, "__id__": "a",
        },
        "retcode": 0,
    },
}
rows.append({"name": "batch display plain", "data": batch, "color": False})
rows.append({"name": "batch display colour", "data": batch, "color": True})
nested = {"m": {"s": "two\nlines", "n": None, "t": True, "i": 3, "f": 1.5, "l": ["a", {"k": "v"}, [1, 2]], "e": {}}}
rows.append({"name": "nested colour", "data": nested, "out": "nested", "color": True})
rows.append({"name": "nested colour failed return", "data": nested, "out": "nested", "color": True, "retcode": 1})

out = []
for row in rows:
    opts = salt.config.minion_config(None)
    opts.update({
        "color": row["color"],
        "state_output": row.get("state_output", "full"),
        "state_verbose": row.get("state_verbose", True),
        "state_output_profile": True,
    })
    kwargs = {"_retcode": row["retcode"]} if "retcode" in row else {}
    text = salt.output.out_format(copy.deepcopy(row["data"]), row.get("out", "highstate"), opts, **kwargs)
    out.append({**row, "expected": text})
json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
sys.stdout.write("\n")
