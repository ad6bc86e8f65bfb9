"""A weight soup: the parameter-wise mean of policy files fine-tuned from one start.

Networks fine-tuned from the same weights often lie in one basin, where the
mean of their parameters plays at least as well as each of them ("model
soups", Wortsman et al. 2022).  This writes that mean as a policy file,
playable as ``ppo:path=OUT`` and exportable like any run's policy; the
header and everything but the weights are the last input's.  Measured on
Silberne Ananas (docs/lab/weight_soup.md, "a weight soup"): level.

    python scripts/probes/soup.py runs/a/policy.pt runs/b/policy.pt --out runs/soup/policy.pt
"""

from __future__ import annotations

import argparse
import os

import torch as th


def soup(paths: list[str]) -> dict:
    """The last file's contents with each weight the mean over all files (same shapes needed)."""
    files = [th.load(p, map_location="cpu", weights_only=False) for p in paths]
    states = [f["state_dict"] for f in files]
    keys = list(states[0])
    for p, s in zip(paths, states):
        if list(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):
            raise SystemExit(f"{p}: not the network of {paths[0]} (other weights or shapes)")
    out = dict(files[-1])
    out["state_dict"] = {k: (sum(s[k].float() for s in states) / len(states)).to(
        states[0][k].dtype) for k in keys}
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("policies", nargs="+", help="policy files (policy.pt) of one architecture")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    if len(args.policies) < 2:
        ap.error("a soup needs at least two policy files")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    th.save(soup(args.policies), args.out)
    print(f"wrote {args.out}: the mean of {len(args.policies)} networks")


if __name__ == "__main__":
    main()
