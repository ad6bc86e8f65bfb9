// An outside bot in Node.js over JSON lines (docs/arena.md): nothing to install but Node.
//   stichzoo arena wizard 'cmd:node scripts/arena_examples/bot.js'
// Each request line {"id", "bot", "view", "seed"} gets one answer line {"id", "action"}:
// the action is one of the view's "legal" labels. This bot plays the first legal label
// (in Wizard: the lowest bid, the first card of the hand) - a strategy, not a good one.
const readline = require("readline");

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const request = JSON.parse(line);
  const legal = request.view.legal;
  const answer = { id: request.id, action: legal[0] };
  process.stdout.write(JSON.stringify(answer) + "\n");
});
