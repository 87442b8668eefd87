#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""lava-validate.py: validates LAVA job files with lava-common's strict submission schema.

Usage: PYTHONPATH=<extracted lava-common> tests/lava-validate.py JOB.yaml...
(scripts/lava-setup.sh prints the directory; its env.sh sets PYTHONPATH.) This is the schema a
lava-server applies at submission (lava_scheduler_app/dbutils.py validate_job); lava-run does
not apply it, so a job that runs locally could still be refused by a lab. Prints one line per
job, "JOB: ok" or "JOB: <error>"; exit 0 when all are valid, 1 otherwise, 2 on bad usage.
"""
import sys

import yaml
from lava_common.schemas import validate


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    bad = 0
    for path in argv:
        try:
            with open(path, encoding="utf-8") as f:
                job = yaml.safe_load(f)
            validate(job, strict=True)
            print("%s: ok" % path)
        except Exception as e:  # voluptuous.Invalid, yaml errors, OSError: all are "not valid"
            print("%s: %s" % (path, e))
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
