// stichzoo browser table: plain JavaScript, no build step, no network beyond this server.
//
// The server referees (policies/tables/web.py, docs/web_table.md): this page only shows the
// human seat's view and sends the chosen move.  Everything from the server is written with
// textContent, never as HTML.  document.body.dataset.state tells tests (and CSS) where the
// page is: loading, setup, busy, your-turn, over, gone, replay.
"use strict";

const GONE_TEXT = "This table is gone (expired, or the server restarted).";

const S = {choices: null, tableId: null, instance: null, tv: null, log: [], lastEvent: -1,
           roundEnds: [], record: null, frames: [], frame: 0, busy: false};

// -- small helpers ---------------------------------------------------------------------------

function $(id) { return document.getElementById(id); }

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("data-") || k === "title" || k === "colspan" || k === "type") {
      node.setAttribute(k, v);
    } else node[k] = v;
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

function clear(node) { node.replaceChildren(); return node; }
function show(node, on) { node.hidden = !on; }
function setState(state) { document.body.dataset.state = state; }

function seatNames(tv) {
  return tv.players.map(p => (p.human ? "You" : `Seat ${p.seat}`));
}

// -- cards -----------------------------------------------------------------------------------

// Every game's display facts come from the server (GET /tables/options, read from
// envs/<game>/display.py): its suits (key, name, colour) in hand order and every card's suit,
// rank and face.  The page applies them as data; it never reads a card name itself.

function facts(game) {
  const g = S.choices && S.choices.games && S.choices.games[game];
  return {suits: (g && g.suits) || [], cards: (g && g.cards) || {}};
}

function cardFacts(game, card) {
  return facts(game).cards[card] || {suit: card, rank: 0, text: card, sub: "", title: card};
}

function suitFacts(game, key) {
  return facts(game).suits.find(s => s.key === key) || {key, name: key, colour: ""};
}

// a display style as CSS classes, word by word: bold magenta is c-bold c-magenta
function styleClass(style) {
  return (style || "").split(/\s+/).filter(Boolean).map(w => `c-${w}`).join(" ");
}

function cardFace(game, card) {
  const c = cardFacts(game, card);
  return {text: c.text, title: c.title, sub: c.sub,
          colour: styleClass(suitFacts(game, c.suit).colour) || "c-black"};
}

function cardNode(game, card, opts) {
  const o = opts || {};
  const f = cardFace(game, card);
  const cls = `card ${f.colour}${o.small ? " small" : ""}${o.legal ? " legal" : ""}`;
  if (o.onClick) {
    const b = el("button", {type: "button", class: cls, title: f.title, "data-card": card,
                            "data-move-id": o.moveId}, f.text, f.sub ? el("span", {class: "sub", text: f.sub}) : null);
    b.disabled = !o.legal;
    if (o.legal) b.addEventListener("click", o.onClick);
    return b;
  }
  return el("span", {class: cls, title: f.title, "data-card": card}, f.text,
            f.sub ? el("span", {class: "sub", text: f.sub}) : null);
}

function cardsNode(game, cards) {
  const span = el("span", {class: "suit-line"});
  if (!cards || !cards.length) span.append(el("span", {class: "small", text: "-"}));
  for (const c of cards || []) span.append(cardNode(game, c, {small: true}));
  return span;
}

function groupBySuit(game, hand) {
  const order = facts(game).suits.map(s => s.key);
  const groups = new Map();
  for (const c of hand) {
    const s = cardFacts(game, c).suit;
    if (!groups.has(s)) groups.set(s, []);
    groups.get(s).push(c);
  }
  const keys = [...groups.keys()].sort((a, b) => {
    const ia = order.indexOf(a), ib = order.indexOf(b);
    return (ia < 0 ? order.length : ia) - (ib < 0 ? order.length : ib);
  });
  const rank = c => cardFacts(game, c).rank;
  return keys.map(s => [s, groups.get(s).sort((a, b) => rank(a) - rank(b))]);
}

// -- talking to the server -------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

async function api(method, path, body) {
  const init = {method, headers: {}};
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, "The server does not answer. Is stichzoo serve still running?");
  }
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) {
    const msg = data && typeof data.error === "string" ? data.error : `HTTP ${res.status}`;
    throw new ApiError(res.status, msg);
  }
  return data;
}

function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  show(box, !!message);
}

function tableGone() {
  S.busy = false;
  S.tableId = null;
  show($("gone"), true);
  show($("table"), false);
  setState("gone");
  if (location.hash) history.replaceState(null, "", location.pathname);
}

function handleError(e) {
  if (e instanceof ApiError && e.status === 404) { tableGone(); return; }
  showError(e.message);
  setState(S.tv && S.tv.over ? "over" : (S.tv ? "your-turn" : "setup"));
}

// -- the setup form --------------------------------------------------------------------------

function currentGame() { return S.choices.games[$("game").value]; }

function fillSetup() {
  const games = S.choices.games;
  const sel = clear($("game"));
  for (const [name, g] of Object.entries(games)) sel.append(el("option", {value: name, text: g.title}));
  sel.addEventListener("change", () => { fillPlayers(); fillOptions(); });
  $("players").addEventListener("change", () => { fillSeats(); fillOpponents(); });
  $("short").addEventListener("change", applyShort);
  fillPlayers();
  fillOptions();
}

function fillPlayers() {
  const g = currentGame();
  const sel = clear($("players"));
  for (const n of g.players) sel.append(el("option", {value: n, text: String(n)}));
  sel.value = String(g.default_players);
  fillSeats();
  fillOpponents();
}

function fillSeats() {
  const n = parseInt($("players").value, 10);
  const sel = clear($("seat"));
  for (let s = 0; s < n; s++) sel.append(el("option", {value: s, text: String(s)}));
}

function fillOpponents() {
  const g = currentGame();
  const n = parseInt($("players").value, 10);
  const box = clear($("opponents"));
  for (let k = 0; k < n - 1; k++) {
    const sel = el("select", {"data-testid": `opponent-${k}`, class: "opponent"});
    for (const o of g.opponents) {
      const fits = o.num_players === null || o.num_players === n;
      const level = o.level ? o.level : "unrated";
      const opt = el("option", {value: o.spec, title: o.about,
                                text: `${o.spec} (${level})${fits ? "" : ` - ${o.num_players} players only`}`});
      opt.disabled = !fits;
      sel.append(opt);
    }
    sel.value = (g.default_opponents || ["heuristic"])[0];
    box.append(el("label", {}, `bot ${k + 1}`, sel));
  }
}

function fillOptions() {
  const g = currentGame();
  const box = clear($("options"));
  for (const o of g.options) {
    let input;
    if (o.kind === "bool") {
      input = el("input", {type: "checkbox", "data-option": o.name});
      input.checked = !!o.default;
    } else if (o.kind === "int_list_or_null") {
      input = el("input", {type: "text", "data-option": o.name, placeholder: "full game", size: 14});
    } else {
      input = el("input", {type: "number", step: 1, "data-option": o.name, style: "width:6em",
                           placeholder: o.default === null ? "default" : String(o.default)});
      if (o.default !== null) input.value = String(o.default);
    }
    input.dataset.kind = o.kind;
    box.append(el("label", {title: o.doc}, o.name, input, el("span", {class: "doc", text: o.doc})));
  }
  applyShort();
}

function applyShort() {
  const g = currentGame();
  const on = $("short").checked;
  for (const o of g.options) {
    const input = document.querySelector(`#options [data-option="${o.name}"]`);
    const value = on && o.name in g.short_options ? g.short_options[o.name] : o.default;
    if (o.kind === "bool") input.checked = !!value;
    else if (o.kind === "int_list_or_null") input.value = value === null ? "" : value.join(",");
    else input.value = value === null ? "" : String(value);
  }
}

function readOptions() {
  const out = {};
  for (const input of document.querySelectorAll("#options [data-option]")) {
    const name = input.dataset.option;
    const kind = input.dataset.kind;
    const raw = input.value.trim();
    if (kind === "bool") out[name] = input.checked;
    else if (kind === "int_list_or_null") {
      if (raw) out[name] = raw.split(/[\s,]+/).filter(Boolean).map(Number);
    } else if (raw) out[name] = Number(raw);
  }
  return out;
}

async function startTable(ev) {
  if (ev) ev.preventDefault();
  $("setup-error").textContent = "";
  const body = {game: $("game").value, players: parseInt($("players").value, 10),
                seat: parseInt($("seat").value, 10), options: readOptions(),
                opponents: [...document.querySelectorAll("#opponents select")].map(s => s.value)};
  const seed = $("seed").value.trim();
  if (seed) body.seed = Number(seed);
  setState("busy");
  $("start").disabled = true;
  try {
    const tv = await api("POST", "/tables", body);
    beginTable(tv);
  } catch (e) {
    $("setup-error").textContent = e.message;
    setState("setup");
  } finally {
    $("start").disabled = false;
  }
}

function toSetup() {
  show($("gone"), false);
  showError("");
  show($("table"), false);
  show($("replay"), false);
  show($("setup"), true);
  show($("new-table"), false);
  S.tableId = null;
  S.tv = null;
  if (location.hash) history.replaceState(null, "", location.pathname);
  setState("setup");
}

// -- the table -------------------------------------------------------------------------------

function beginTable(tv) {
  S.tableId = tv.table_id;
  S.instance = tv.instance;
  S.log = [];
  S.lastEvent = -1;
  S.roundEnds = [];
  S.record = null;
  history.replaceState(null, "", `#table=${encodeURIComponent(tv.table_id)}`);
  show($("setup"), false);
  show($("gone"), false);
  show($("replay"), false);
  show($("table"), true);
  show($("new-table"), true);
  clear($("log"));
  clear($("rounds"));
  update(tv);
}

function addEvents(tv, events) {
  for (const e of events) {
    if (e.n <= S.lastEvent) continue;
    S.lastEvent = e.n;
    if (e.type === "round_end") { S.roundEnds.push(e); renderRoundEnd(tv, e); }
    if (e.type === "game_over") continue;  // the summary says it
    const li = el("li", {text: e.text || e.type, "data-type": e.type});
    $("log").append(li);
  }
  const log = $("log");
  while (log.children.length > 300) log.firstChild.remove();
  log.scrollTop = log.scrollHeight;
}

function update(tv) {
  if (S.instance && tv.instance !== S.instance) { tableGone(); return; }
  S.tv = tv;
  S.busy = false;
  showError("");
  addEvents(tv, tv.events || []);
  render(tv);
  if (tv.over) { renderGameOver(tv); setState("over"); }
  else setState("your-turn");
}

async function play(moveId) {
  if (S.busy || !S.tableId) return;
  S.busy = true;
  setState("busy");
  for (const b of document.querySelectorAll("#hand button, #moves button, #info button")) b.disabled = true;
  try {
    // the decision this move answers: the server plays it only while the table is there
    const body = {move: moveId, decisions: S.tv.decisions};
    update(await api("POST", `/tables/${encodeURIComponent(S.tableId)}/act`, body));
  } catch (e) {
    S.busy = false;
    if (e instanceof ApiError && e.status === 409 && !S.tv.over) { await catchUp(e); return; }
    if (S.tv) render(S.tv);
    handleError(e);
  }
}

// a stale move (another tab moved, or the game went on): show the table as it is now
async function catchUp(stale) {
  const id = encodeURIComponent(S.tableId);
  try {
    const tv = await api("GET", `/tables/${id}`);
    const missed = await api("GET", `/tables/${id}/events?after=${S.lastEvent}`);
    addEvents(tv, missed.events);
    update(tv);
    showError(stale.message);
  } catch (e) {
    if (S.tv) render(S.tv);
    handleError(e);
  }
}

// "<title> - <where> - phase: <phase>": where the game stands is the game's own line
function header(tv) {
  const where = tv.screen ? ` - ${tv.screen.where}` : "";
  return `${titleOf(tv.game)}${where} - phase: ${tv.view.phase.replace(/_/g, " ")}`;
}

// the game's title as the server declares it (envs/<game>/display.py, GET /tables/options)
function titleOf(game) {
  const g = S.choices && S.choices.games && S.choices.games[game];
  return (g && g.title) || game;
}

// the game's columns of the scoreboard (bids, sore cards, tasks, ...): one text per seat
function columns(list) {
  return (list || []).map(c => [c.title, s => String(c.texts[s] ?? "")]);
}

function renderScoreboard(tv) {
  const v = tv.view, names = seatNames(tv);
  const cols = columns(tv.screen && tv.screen.seat_columns);
  const dealer = "dealer" in v ? v.dealer : v.start_player;
  const role = "dealer" in v ? "dealer" : "start";
  const tb = clear($("scoreboard"));
  tb.append(el("tr", {}, el("th", {text: ""}), el("th", {text: "Seat"}), el("th", {text: "Player"}),
                ...cols.map(([t]) => el("th", {text: t})), el("th", {class: "num", text: "Total"})));
  names.forEach((name, s) => {
    const p = tv.players[s];
    const cls = [v.to_act === s ? "to-act" : "", p.human ? "human" : ""].join(" ").trim();
    tb.append(el("tr", {class: cls || null, "data-seat": s},
                 el("td", {text: v.to_act === s ? "\u25B6" : ""}),
                 el("td", {text: name + (s === dealer ? ` (${role})` : "")}),
                 el("td", {text: p.human ? "you" : p.policy}),
                 ...cols.map(([, f]) => el("td", {text: f(s)})),
                 el("td", {class: "num", "data-testid": `total-${s}`, text: String(v.totals[s])})));
  });
}

function trickNode(game, trick, names, n) {
  const box = el("div", {});
  if (!trick || !trick.cards || !trick.cards.length) {
    box.append(el("span", {class: "small", text: "(no cards yet)"}));
    return box;
  }
  const seats = trick.seats || trick.cards.map((_, k) => (trick.leader + k) % n);
  trick.cards.forEach((c, k) => {
    box.append(el("span", {class: "played"}, cardNode(game, c), names[seats[k]]));
  });
  return box;
}

function outcomeText(t, names) {
  if ("high" in t) return `${names[t.low_seat]} takes ${t.high}, ${names[t.high_seat]} takes the rest and leads`;
  if (t.winner === null || t.winner === undefined) return "all Aces: the cards leave the game";
  let text = `\u2192 ${names[t.winner]}`;
  if ("gift" in t) text += ` (Joker gift: ${names[t.joker_seat]} gave it ${t.gift})`;
  return text;
}

function renderTricks(tv) {
  const game = tv.game, v = tv.view, names = seatNames(tv), n = names.length;
  const last = clear($("last-trick"));
  const t = tv.last_trick;
  if (!t) last.append(el("span", {class: "small", text: "(none yet)"}));
  else {
    last.append(trickNode(game, t, names, n));
    const now = v.round !== undefined ? v.round : v.deal;
    const earlier = t.round !== now ? `(round ${t.round + 1}) ` : "";
    last.append(el("div", {class: "outcome", "data-testid": "last-trick-outcome",
                           text: earlier + outcomeText(t, names)}));
  }
  const cur = clear($("trick"));
  if (v.trick) cur.append(trickNode(game, v.trick, names, n));
  else cur.append(el("span", {class: "small", text: "(no trick now)"}));
}

// the legal moves that name a card (play it, lay it face down, take it), by card
function legalByCard(tv) {
  const out = new Map();
  for (const m of tv.moves) if (m.card) out.set(m.card, m);
  return out;
}

function renderHand(tv) {
  const game = tv.game, v = tv.view;
  const legal = legalByCard(tv);
  const box = clear($("hand"));
  if (!v.hand.length) { box.append(el("span", {class: "small", text: "(no cards)"})); return; }
  for (const [suit, cards] of groupBySuit(game, v.hand)) {
    const name = suitFacts(game, suit).name;
    const line = el("div", {class: "suit-line"}, el("span", {class: "suit-name", text: name}));
    for (const c of cards) {
      const m = legal.get(c);
      line.append(cardNode(game, c, {legal: !!m && !S.busy, moveId: m ? m.id : null,
                                     onClick: () => m && play(m.id)}));
    }
    box.append(line);
  }
}

function renderMoves(tv) {
  const box = clear($("moves"));
  show($("moves-title"), !tv.over);
  for (const m of tv.moves) {
    const b = el("button", {type: "button", class: "move", "data-move-id": m.id,
                            "data-kind": m.kind, "data-testid": `move-${m.n}`},
                 el("span", {class: "n", text: `${m.n}:`}),
                 m.card
                   ? [m.kind === "card" ? "" : `${m.kind} `, cardNode(tv.game, m.card, {small: true})]
                   : m.label);
    b.disabled = S.busy;
    b.addEventListener("click", () => play(m.id));
    box.append(b);
  }
  if (!tv.over && !tv.moves.length) box.append(el("span", {class: "small", text: "waiting for the bots"}));
}

// the lines only this game has (trump, led suit, the Joker's gift, draft rows, open hands):
// the game's notes for this seat, evaluated by the server from the seat's view
function renderInfo(tv) {
  const names = seatNames(tv);
  const box = clear($("info"));
  ((tv.screen && tv.screen.notes) || []).forEach((note, k) => {
    if (note.kind === "grid") box.append(gridNode(tv.game, note, names, k));
    else box.append(noteNode(tv, note, k));
  });
}

// a note's words, a card name drawn as its card: one a legal move names (a face-up card to
// take) is a button, as in the hand
function noteNode(tv, note, k) {
  const line = el("p", {class: styleClass(note.style) || null, "data-testid": `note-${k}`});
  const cards = facts(tv.game).cards, legal = legalByCard(tv);
  for (const word of note.text.split(/(\s+)/)) {
    if (!Object.hasOwn(cards, word)) { line.append(word); continue; }
    const m = legal.get(word);
    line.append(cardNode(tv.game, word, m ? {legal: !S.busy, moveId: m.id, onClick: () => play(m.id)}
                                          : {small: true}));
  }
  return line;
}

function gridNode(game, grid, names, k) {
  const wrap = el("div", {"data-testid": `note-${k}`}, el("h3", {text: grid.title.replace(/:$/, "")}));
  const tb = el("table", {class: "grid note-grid"});
  tb.append(el("tr", {}, ...grid.columns.map(c => el("th", {text: c}))));
  for (const row of grid.rows) {
    tb.append(el("tr", {}, ...row.map(cell => el("td", {}, cellNode(game, cell, names)))));
  }
  wrap.append(tb);
  return wrap;
}

// a grid cell: a text, or cards (each after the seat that played it when seats are given)
function cellNode(game, cell, names) {
  if (typeof cell === "string") return cell;
  if (!cell.seats) return cardsNode(game, cell.cards);
  const span = el("span", {});
  cell.cards.forEach((c, k) => {
    span.append(el("span", {class: "played"}, cardNode(game, c, {small: true}), names[cell.seats[k]]));
  });
  return span;
}

function render(tv) {
  const game = tv.game;
  $("table-title").textContent = header(tv);
  $("table-sub").textContent = `You are seat ${tv.seat}; seed ${tv.seed} (the same seed deals the same cards). ` +
    `Decisions so far: ${tv.decisions}.`;
  $("table").dataset.decisions = String(tv.decisions);
  $("table").dataset.game = game;
  renderScoreboard(tv);
  renderInfo(tv);
  renderTricks(tv);
  renderHand(tv);
  renderMoves(tv);
  show($("gameover"), tv.over);
}

function renderRoundEnd(tv, e) {
  const names = seatNames(tv), n = names.length;
  const extra = columns(e.columns);  // the game's columns of the round summary
  const hasScores = e.scores !== null && e.scores !== undefined;
  const tb = el("table", {class: "grid", "data-testid": `round-${e.round}`});
  tb.append(el("caption", {text: `End of round ${e.round + 1}`}));
  tb.append(el("tr", {}, el("th", {text: "Seat"}), ...extra.map(([t]) => el("th", {text: t})),
               hasScores ? el("th", {class: "num", text: "Round score"}) : null,
               el("th", {class: "num", text: "Total"})));
  for (let s = 0; s < n; s++) {
    tb.append(el("tr", {}, el("td", {text: names[s]}), ...extra.map(([, f]) => el("td", {text: f(s)})),
                 hasScores ? el("td", {class: "num", text: String(e.scores[s])}) : null,
                 el("td", {class: "num", text: String(e.totals[s])})));
  }
  const box = $("rounds");
  box.prepend(tb);
}

async function renderGameOver(tv) {
  const names = seatNames(tv), s = tv.summary;
  const tb = clear($("final"));
  tb.append(el("tr", {}, el("th", {text: "Place"}), el("th", {text: "Seat"}), el("th", {text: "Player"}),
               el("th", {class: "num", text: "Total"})));
  const order = names.map((_, k) => k).sort((a, b) => (s.placement[a] - s.placement[b]) || (a - b));
  for (const seat of order) {
    const pl = tv.players[seat];
    tb.append(el("tr", {class: pl.human ? "human" : null},
                 el("td", {text: String(s.placement[seat] + 1)}), el("td", {text: names[seat]}),
                 el("td", {text: pl.human ? "you" : pl.policy}),
                 el("td", {class: "num", "data-testid": `final-total-${seat}`, text: String(s.totals[seat])})));
  }
  let verdict;
  if (s.winners.length) verdict = s.human_won ? "You won!" : "Winner(s): " + s.winners.map(w => names[w]).join(", ");
  else verdict = "Nobody won: the round limit ended the game.";
  $("verdict").textContent = verdict;
  $("verdict").dataset.winners = s.winners.join(",");
  $("rule").textContent = `Rule: ${s.winner_rule}.`;
  const link = $("download-record");
  link.removeAttribute("data-ready");
  try {
    const record = await api("GET", `/tables/${encodeURIComponent(S.tableId)}/record`);
    S.record = record;
    const blob = new Blob([JSON.stringify(record, null, 1)], {type: "application/json"});
    if (link.href && link.href.startsWith("blob:")) URL.revokeObjectURL(link.href);
    link.href = URL.createObjectURL(blob);
    link.download = `stichzoo-${tv.game}-${tv.seed}.json`;
    link.dataset.ready = "1";
    openReplay(record, names, tv.players);
  } catch (e) {
    handleError(e);
  }
}

// -- stepping through a record ---------------------------------------------------------------

// A card play is a decision whose label is a card name: every other label has a space
// ("bid 2", "trump G", "sore 7h", "give left", "take 7H", "choose no_trick").
function isCardPlay(label) { return !label.includes(" "); }

function buildFrames(record) {
  const n = record.num_players;
  const zeros = Array(n).fill(0);
  const frames = [{k: 0, text: "The deal, before the first decision", round: 0, trick: null,
                   lastTrick: null, won: zeros.slice(), totals: zeros.slice(), trickEnd: false}];
  let r = 0, t = 0, c = 0;  // round, trick, card within trick of the next card play
  let won = zeros.slice(), totals = zeros.slice(), lastTrick = null, trick = null;
  const rounds = record.rounds || [];
  const skipEmpty = () => {
    while (r < rounds.length && t >= (rounds[r].tricks || []).length) {
      totals = rounds[r].totals ? rounds[r].totals.slice() : totals;
      r += 1; t = 0; c = 0; won = zeros.slice(); trick = null;
    }
  };
  record.decisions.forEach((d, i) => {
    let text = `Seat ${d.seat}: ${d.label}`;
    let trickEnd = false, roundEnd = null;
    if (isCardPlay(d.label) && r < rounds.length) {
      const tr = rounds[r].tricks[t];
      trick = {leader: tr.leader, cards: tr.cards.slice(0, c + 1), seats: (tr.seats || []).slice(0, c + 1)};
      text = `Seat ${d.seat} played ${d.label}`;
      c += 1;
      if (c >= tr.cards.length) {
        trickEnd = true;
        lastTrick = tr;
        if (tr.winner !== null && tr.winner !== undefined) won[tr.winner] += 1;
        t += 1; c = 0;
        if (t >= rounds[r].tricks.length) {
          roundEnd = r;
          totals = rounds[r].totals ? rounds[r].totals.slice() : totals;
        }
      }
    }
    const frame = {k: i + 1, text, round: roundEnd !== null ? roundEnd : r, trick, lastTrick,
                   won: won.slice(), totals: totals.slice(), trickEnd, roundEnd};
    frames.push(frame);
    if (roundEnd !== null) { r += 1; t = 0; c = 0; won = zeros.slice(); trick = null; skipEmpty(); }
  });
  const end = frames[frames.length - 1];
  end.totals = record.totals.slice();  // after the last decision: the record's own totals
  end.final = true;
  return frames;
}

function openReplay(record, names, players) {
  if (!record || !Array.isArray(record.decisions) || !Array.isArray(record.rounds)) {
    showError("That file is not a stichzoo game record (docs/records.md).");
    return;
  }
  S.record = record;
  S.replayNames = names || Array.from({length: record.num_players}, (_, s) => `Seat ${s}`);
  S.replayPlayers = players || null;
  S.frames = buildFrames(record);
  const range = $("replay-range");
  range.max = String(S.frames.length - 1);
  show($("replay"), true);
  showFrame(0);
}

function showFrame(k) {
  const frames = S.frames;
  if (!frames.length) return;
  k = Math.max(0, Math.min(frames.length - 1, k));
  S.frame = k;
  const f = frames[k], rec = S.record, names = S.replayNames, game = rec.game, n = rec.num_players;
  $("replay-range").value = String(k);
  $("replay-pos").textContent = `decision ${k} of ${frames.length - 1}, round ${f.round + 1}`;
  $("replay").dataset.frame = String(k);
  let text = f.text.replace(/^Seat (\d+)/, (_, s) => names[Number(s)]);
  if (f.trickEnd && f.lastTrick) text += `; trick complete: ${outcomeText(f.lastTrick, names)}`;
  if (f.roundEnd !== null && f.roundEnd !== undefined) text += `; round ${f.roundEnd + 1} over`;
  if (f.final) text += rec.over || rec.truncated ? " - game over" : "";
  $("replay-text").textContent = text;
  const lt = clear($("replay-last-trick"));
  if (f.lastTrick) {
    lt.append(trickNode(game, f.lastTrick, names, n));
    lt.append(el("div", {class: "outcome", text: outcomeText(f.lastTrick, names)}));
  } else lt.append(el("span", {class: "small", text: "(none yet)"}));
  const tc = clear($("replay-trick-cards"));
  if (f.trick) tc.append(trickNode(game, f.trick, names, n));
  else tc.append(el("span", {class: "small", text: "(no cards yet)"}));
  const round = rec.rounds[Math.min(f.round, rec.rounds.length - 1)] || {};
  const hands = clear($("replay-hands"));
  (round.hands || []).forEach((h, s) => hands.append(el("tr", {}, el("td", {text: names[s]}),
                                                         el("td", {}, cardsNode(game, h)))));
  const tb = clear($("replay-totals"));
  tb.append(el("tr", {}, el("th", {text: "Seat"}), el("th", {class: "num", text: "Tricks (round)"}),
               el("th", {class: "num", text: f.final ? "Final total" : "Total"})));
  for (let s = 0; s < n; s++) {
    tb.append(el("tr", {}, el("td", {text: names[s]}), el("td", {class: "num", text: String(f.won[s])}),
                 el("td", {class: "num", "data-testid": `replay-total-${s}`, text: String(f.totals[s])})));
  }
}

function nextTrickFrame() {
  for (let k = S.frame + 1; k < S.frames.length; k++) if (S.frames[k].trickEnd) return k;
  return S.frames.length - 1;
}

function wireReplay() {
  $("replay-first").addEventListener("click", () => showFrame(0));
  $("replay-prev").addEventListener("click", () => showFrame(S.frame - 1));
  $("replay-next").addEventListener("click", () => showFrame(S.frame + 1));
  $("replay-trick").addEventListener("click", () => showFrame(nextTrickFrame()));
  $("replay-last").addEventListener("click", () => showFrame(S.frames.length - 1));
  $("replay-range").addEventListener("input", e => showFrame(parseInt(e.target.value, 10)));
  $("replay-close").addEventListener("click", () => show($("replay"), false));
  document.addEventListener("keydown", e => {
    if ($("replay").hidden || e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    if (e.key === "ArrowLeft") showFrame(S.frame - 1);
    if (e.key === "ArrowRight") showFrame(S.frame + 1);
  });
  $("record-file").addEventListener("change", async e => {
    const file = e.target.files && e.target.files[0];
    if (!file) return;
    try {
      openReplay(JSON.parse(await file.text()));
      setState("replay");
    } catch (err) {
      showError(`Cannot read ${file.name}: ${err.message}`);
    }
  });
}

// -- start -----------------------------------------------------------------------------------

async function resume(tableId) {
  S.tableId = tableId;
  try {
    const tv = await api("GET", `/tables/${encodeURIComponent(tableId)}`);
    beginTable({...tv, events: []});
    const all = await api("GET", `/tables/${encodeURIComponent(tableId)}/events?after=-1`);
    addEvents(tv, all.events);
  } catch (e) {
    handleError(e);
  }
}

async function main() {
  $("setup-form").addEventListener("submit", startTable);
  $("gone-new").addEventListener("click", toSetup);
  $("new-table").addEventListener("click", () => {
    if (S.tableId && S.tv && !S.tv.over) {
      api("DELETE", `/tables/${encodeURIComponent(S.tableId)}`).catch(() => {});
    }
    toSetup();
  });
  $("again").addEventListener("click", toSetup);
  wireReplay();
  try {
    S.choices = await api("GET", "/tables/options");
  } catch (e) {
    showError(e.message);
    setState("error");
    return;
  }
  S.instance = S.choices.instance;
  fillSetup();
  const m = /^#table=(.+)$/.exec(location.hash);
  if (m) await resume(decodeURIComponent(m[1]));
  else toSetup();
}

document.addEventListener("DOMContentLoaded", main);
