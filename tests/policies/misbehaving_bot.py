"""A JSON-lines bot that misbehaves on purpose, for the forfeit tests (test_outside.py).

    python tests/policies/misbehaving_bot.py MODE [AFTER]

Answers AFTER requests correctly (the first legal label), then: ``hang`` (never answers,
ignoring SIGTERM), ``crash`` (exits 3 with a message on stderr), ``illegal`` (answers a label
that is not legal), ``garbage`` (prints a line that is not JSON), ``error`` (an error answer).
"""

import json
import signal
import sys
import time

mode, after = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 0
signal.signal(signal.SIGTERM, signal.SIG_IGN)
for n, line in enumerate(sys.stdin):
    request = json.loads(line)
    answer = {"id": request["id"], "action": request["view"]["legal"][0]}
    if n >= after:
        if mode == "hang":
            while True:
                time.sleep(1)
        if mode == "crash":
            print("misbehaving_bot: crashing on purpose", file=sys.stderr, flush=True)
            sys.exit(3)
        if mode == "illegal":
            answer["action"] = "no such move"
        if mode == "garbage":
            print("<html>this is not JSON</html>", flush=True)
            continue
        if mode == "error":
            answer = {"id": request["id"], "error": "I give up", "status": 422}
    print(json.dumps(answer), flush=True)
