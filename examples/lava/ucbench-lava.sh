#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ucbench-lava.sh - the step of the LAVA test definition ucbench.yaml: build (unless
# SKIP_BUILD=true), `ucbench verify`, `ucbench run`, then one lava-test-case per verify case and
# per metric (lava-report.py, from `ucbench export --to lava`).  Parameters arrive as
# environment variables: RUN_ARGS, VERIFY_ARGS, SKIP_BUILD, UCBENCH (LAVA writes them into run.sh
# as plain shell variables, and the definition's step before this one exports them); OUTDIR is
# where the JSON documents go.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${OUTDIR:-$top/lava-output}
mkdir -p "$out"

if [ "${SKIP_BUILD:-false}" = true ]; then
  ucbench=${UCBENCH:-$(command -v ucbench || true)}
  if [ -z "$ucbench" ] || [ ! -x "$ucbench" ]; then
    echo "ucbench-lava: SKIP_BUILD=true but no ucbench (set UCBENCH or PATH)" >&2
    lava-test-case build --result fail
    exit 0
  fi
else
  if ! BUILDDIR="$top/build" "$top/scripts/quickstart" build; then
    lava-test-case build --result fail
    exit 0
  fi
  ucbench=$top/build/ucbench
fi
lava-test-case build --result pass

# The verdicts: every case, even after a failing one; TAP in the job log, the JSON document
# for lava-report.py.
# shellcheck disable=SC2086  # the *_ARGS are word lists on purpose
"$ucbench" verify ${VERIFY_ARGS:-} --keep-going --output "$out/verify.json"
vrc=$?
# shellcheck disable=SC2086
"$ucbench" run ${RUN_ARGS:-} --quiet --output "$out/run.json"
rrc=$?
python3 "$here/lava-report.py" --ucbench "$ucbench" --verify "$out/verify.json" \
  --verify-status "$vrc" --run "$out/run.json" --run-status "$rrc"
