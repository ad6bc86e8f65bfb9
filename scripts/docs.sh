#!/usr/bin/env bash
# Build the docs site into site/, strictly: a broken link, a missing page or a
# docstring section missing from an env page fails the build (mkdocs.yml;
# generated pages: scripts/docs_pages.py).  --serve serves it at
# http://127.0.0.1:8001/ and rebuilds on change.  Needs the `docs` extra
# (in `dev`): bash scripts/setup.sh dev.
set -euo pipefail
export NO_MKDOCS_2_WARNING=1 DISABLE_MKDOCS_2_WARNING=true
cd "$(dirname "$0")/.."
.venv/bin/python scripts/docs_pages.py >/dev/null   # build/docs_pkg: the package as installed
if [ "${1:-}" = "--serve" ]; then
    shift
    exec .venv/bin/mkdocs serve --strict --dev-addr "${DOCS_ADDR:-127.0.0.1:8001}" "$@"
fi
exec .venv/bin/mkdocs build --strict --clean "$@"
