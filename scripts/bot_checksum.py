"""Add ``manifest_sha256`` to bot folders exported before it existed (docs/bots.md).

    python scripts/bot_checksum.py policies/bots/*          # stamp (or re-stamp) the folders
    python scripts/bot_checksum.py --check policies/bots/*  # exit 1 unless every one matches

The checksum covers the manifest's game, rule options, players and layouts
and the model file's SHA-256 (``stichzoo.policies.runtimes.onnx_policy.CHECKSUM_KEYS``),
so a bot whose rule options are edited afterwards is refused.  Stamp only a
manifest you trust as exported: the folder must load (every other check
passes) before it is stamped - also a stamp that does not match is refused
(delete the field by hand if the change was meant) - and the stamp says its
fields are the export's.  ``stichzoo export`` writes the field itself.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys

from stichzoo.policies.runtimes.onnx_policy import manifest_checksum, read_manifest, verify_bot


def stamp(bot_dir: str) -> str:
    """Write ``manifest_sha256`` into the folder's manifest.json (formatting kept); the digest."""
    manifest = read_manifest(bot_dir)
    manifest.pop("manifest_sha256", None)
    verify_bot(bot_dir)  # a folder that does not load is not stamped
    manifest["manifest_sha256"] = manifest_checksum(manifest)
    path = os.path.join(bot_dir, "manifest.json")
    with open(path, encoding="utf-8") as f:
        newline = "\n" if f.read().endswith("\n") else ""
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(manifest, indent=1) + newline)
    return manifest["manifest_sha256"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", help="bot folders (manifest.json + model)")
    parser.add_argument("--check", action="store_true",
                        help="only check: exit 1 unless every folder has a matching checksum")
    args = parser.parse_args(argv)
    logging.getLogger("stichzoo.bots").setLevel(logging.ERROR)  # "no checksum yet" is why we run
    bad = 0
    for folder in args.folders:
        try:
            if args.check:
                manifest = read_manifest(folder)
                ok = manifest.get("manifest_sha256") == manifest_checksum(manifest)
                print(f"{folder}: {'ok' if ok else 'missing or different'}")
                bad += not ok
            else:
                print(f"{folder}: manifest_sha256 {stamp(folder)}")
        except ValueError as e:
            print(f"{folder}: {e}", file=sys.stderr)
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
