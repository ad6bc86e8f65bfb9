// stichzoo browser table: plain JavaScript, no build step, no network beyond this server.
//
// The server referees (policies/serve/web_table.py, docs/web_table.md): this page only shows the
// human seat's view and sends the chosen move.  Everything from the server is written with
// textContent, never as HTML (the rules panel alone shows the server's html, cleaned).
// document.body.dataset.state tells tests (and CSS) where the page is: loading, setup, busy,
// your-turn, over, gone, replay.
//
// The page follows the table: the address (#table=ID) says which table it shows (Back
// included), a cheap look at GET /tables/ID/version every poll interval notices a move made
// elsewhere (another tab, a retried request) or a restart, and every move names the decision
// it answers, so a stale one is refused by the server and explained here in player words.
// A server that restarted (a new instance, or no answer for a while) is asked for the table
// again by its id: a server with a store (docs/operations.md) resumes it, and the person
// plays on without doing anything; a move that got no answer is sent again for the same
// decision, so it is played once.  A 429 / 503 with Retry-After is asked again after it.
"use strict";

const GONE_TEXT = "This table is gone (expired, or the server restarted).";

const S = {choices: null, tableId: null, instance: null, tv: null, log: [], lastEvent: -1,
           roundEnds: [], record: null, frames: [], frame: 0, busy: false, seq: 0,
           settings: {pause: 700, auto: true, poll: 1500}, replayOf: null};

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
  const size = o.inline ? " inline" : (o.small ? " small" : "");
  const cls = `card ${f.colour}${size}${o.legal ? " legal" : ""}`;
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


// a text from the server with every card name in it drawn as its face - the log, the seats'
// columns and the notes read as the hand does (one card notation everywhere)
function richText(game, text, opts) {
  const span = el("span", {});
  const cards = facts(game).cards;
  for (const part of String(text).split(/([\w]+)/)) {
    if (part && Object.hasOwn(cards, part)) span.append(cardNode(game, part, opts || {inline: true}));
    else if (part) span.append(part);
  }
  return span;
}

// "You take" but "Seat 2 takes": the person is "You"
function verb(name, base) { return name === "You" ? base : `${base}s`; }

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
// -- talking to the server -------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, message, retryAfter) {
    super(message);
    this.status = status;
    this.retryAfter = retryAfter;  // seconds, from a 429 / 503's Retry-After (else null)
  }
}


// the longest Retry-After the page waits by itself (seconds), and how often it asks again
const RETRY_AFTER_MAX = 60;
const RETRIES = 3;

// a request; a 429 or 503 with a short Retry-After is asked again after it, saying so
async function api(method, path, body) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await request(method, path, body);
    } catch (e) {
      const wait = e instanceof ApiError ? e.retryAfter : null;
      if (wait === null || wait > RETRY_AFTER_MAX || attempt >= RETRIES) throw e;
      showNotice(`The server asks to wait ${wait} s (${e.status === 429 ? "too many requests just now" : "it is busy"}); trying again by itself.`);
      await sleep(wait * 1000);
      showNotice("");
    }
  }
}

async function request(method, path, body) {
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
    const after = parseInt(res.headers.get("Retry-After") || "", 10);
    throw new ApiError(res.status, msg, (res.status === 429 || res.status === 503) && after >= 0 ? after : null);
  }
  return data;
}

function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  show(box, !!message);
}

function showNotice(message) {
  const box = $("notice");
  box.textContent = message || "";
  show(box, !!message);
}

function tableGone() {
  S.busy = false;
  S.tableId = null;
  S.tv = null;
  S.seq += 1;
  show($("gone"), true);
  show($("table"), false);
  show($("gameover"), false);
  showNotice("");
  setState("gone");
  if (location.hash) history.replaceState(null, "", location.pathname);
}

// a refusal of the settings with the values as the form writes them: rounds=null is
// "rounds=empty", larger_hands=true is "larger_hands=on" (the server writes JSON values;
// Python's words are mapped too, for an older server)
function plainValues(message) {
  const words = {None: "empty", True: "on", False: "off", null: "empty", true: "on", false: "off"};
  return message.replace(/=(None|True|False|null|true|false)\b/g, (_, w) => `=${words[w]}`);
}

// what a player reads for an answer that is not about a move of theirs
function playerWords(e) {
  if (!(e instanceof ApiError)) return "Something went wrong in this page; reload it to go on.";
  if (e.status === 429) return "You have too many tables open or started many just now; close one or wait a minute.";
  if (e.status === 503) return "The server is busy (too many tables); please try again in a minute.";
  if (e.status >= 500) return "The server had a problem with that request; reload the page to go on.";
  return e.message;
}

function handleError(e) {
  if (e instanceof ApiError && e.status === 404) { tableGone(); return; }
  showError(playerWords(e));
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
      input = el("input", {type: "text", "data-option": o.name, placeholder: "full game (e.g. 1,2,3)", size: 16});
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
      // "1,2,3", "1 2 3" or the terminal's JSON "[1, 2, 3]": one syntax, both accepted
      const items = raw.replace(/[[\]]/g, " ").split(/[\s,]+/).filter(Boolean);
      if (items.some(x => !/^-?\d+$/.test(x))) throw new Error(`${name}: whole numbers such as 1,2,3`);
      if (items.length) out[name] = items.map(Number);
    } else if (raw) {
      if (!/^-?\d+$/.test(raw)) throw new Error(`${name}: a whole number`);
      out[name] = Number(raw);
    }
  }
  return out;
}

async function startTable(ev) {
  if (ev) ev.preventDefault();
  $("setup-error").textContent = "";
  let options;
  try {
    options = readOptions();
  } catch (e) {
    $("setup-error").textContent = `Options: ${e.message}.`;
    return;
  }
  const body = {game: $("game").value, players: parseInt($("players").value, 10),
                seat: parseInt($("seat").value, 10), options,
                opponents: [...document.querySelectorAll("#opponents select")].map(s => s.value)};
  const seed = $("seed").value.trim();
  if (seed) body.seed = Number(seed);
  setState("busy");
  $("start").disabled = true;
  try {
    const tv = await api("POST", "/tables", body);
    beginTable(tv);
  } catch (e) {
    $("setup-error").textContent = e instanceof ApiError && e.status === 422 ? plainValues(e.message) : playerWords(e);
    setState("setup");
  } finally {
    $("start").disabled = false;
  }
}

// the start page; the address loses its table (a new history entry: Back returns to it)
function toSetup(push) {
  show($("gone"), false);
  showError("");
  showNotice("");
  show($("table"), false);
  show($("gameover"), false);
  show($("replay"), false);
  show($("setup"), true);
  show($("new-table"), false);
  S.tableId = null;
  S.tv = null;
  S.seq += 1;  // an animation or a poll under way belongs to the old table
  if (location.hash) {
    if (push) history.pushState(null, "", location.pathname);
    else history.replaceState(null, "", location.pathname);
  }
  setState("setup");
}

// a running game the person would lose by leaving: ask first
function running() { return !!(S.tableId && S.tv && !S.tv.over); }

// -- settings (kept in this browser) -----------------------------------------------------------

// pause: milliseconds a completed trick stays on the table; auto: play a single possible move
// by itself; poll: milliseconds between two looks at the table's version
const SETTINGS_KEY = "stichzoo.settings";
const DEFAULTS = {pause: 700, auto: true, poll: 1500};

function loadSettings() {
  let saved = {};
  try { saved = JSON.parse(localStorage.getItem(SETTINGS_KEY) || "{}") || {}; } catch (e) { saved = {}; }
  S.settings = {...DEFAULTS, ...saved};
  $("set-pause").value = String(S.settings.pause);
  if ($("set-pause").value !== String(S.settings.pause)) {  // a pause of its own (tests)
    $("set-pause").append(el("option", {value: S.settings.pause, text: `${S.settings.pause} ms`}));
    $("set-pause").value = String(S.settings.pause);
  }
  $("set-auto").checked = !!S.settings.auto;
}

function saveSettings() {
  S.settings.pause = parseInt($("set-pause").value, 10) || 0;
  S.settings.auto = $("set-auto").checked;
  try { localStorage.setItem(SETTINGS_KEY, JSON.stringify(S.settings)); } catch (e) { /* private mode */ }
  maybeAutoplay();
}

// -- the table -------------------------------------------------------------------------------

function beginTable(tv) {
  S.tableId = tv.table_id;
  S.instance = tv.instance;
  S.log = [];
  S.lastEvent = -1;
  S.roundEnds = [];
  S.record = null;
  S.seq += 1;
  const hash = `#table=${encodeURIComponent(tv.table_id)}`;
  if (location.hash !== hash) history.pushState(null, "", hash);
  show($("setup"), false);
  show($("gone"), false);
  show($("replay"), false);
  show($("table"), true);
  show($("new-table"), true);
  show($("rules-button"), true);
  showNotice("");
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
    const li = el("li", {"data-type": e.type}, richText(tv.game, e.text || e.type));
    $("log").append(li);
  }
  const log = $("log");
  while (log.children.length > 300) log.firstChild.remove();
  log.scrollTop = log.scrollHeight;
}

// a new view: what happened since (the completed tricks shown for a moment), then the table
async function update(tv, opts) {
  if (S.instance && tv.instance !== S.instance) { await reload(); return; }
  const seq = ++S.seq;
  const before = S.tv;
  S.tv = tv;
  S.busy = true;
  showError("");
  addEvents(tv, tv.events || []);
  const animate = !(opts && opts.quiet) && before && S.settings.pause > 0;
  if (animate) {
    setState("busy");
    render(tv);  // the new hand (not yet playable) while the tricks are shown
    for (const t of (tv.events || []).filter(e => e.type === "trick")) {
      await showTrickTaken(tv, t);
      if (seq !== S.seq) return;  // a newer view came meanwhile
    }
  }
  S.busy = false;
  render(tv);
  if (tv.over) { renderGameOver(tv); setState("over"); }
  else { setState("your-turn"); maybeAutoplay(); }
}

// a completed trick: every card in front of its player, who takes it, then the cards go
async function showTrickTaken(tv, t) {
  const names = seatNames(tv);
  renderSeats(tv, {trick: t, winner: t.winner});
  $("trick-caption").textContent = outcomeText(t, names);
  $("felt").dataset.trickDone = "1";
  const pause = S.settings.pause;
  await sleep(pause * 0.65);
  for (const slot of document.querySelectorAll("#felt .slot")) slot.classList.add("swept");
  await sleep(pause * 0.35);
  delete $("felt").dataset.trickDone;
}

// a single possible move is played by itself after a short pause (Settings)
function maybeAutoplay() {
  const tv = S.tv;
  if (!S.settings.auto || !tv || tv.over || S.busy || tv.moves.length !== 1) return;
  const at = tv.decisions, only = tv.moves[0].id;
  setTimeout(() => {
    if (S.tv === tv && !S.busy && S.tv.decisions === at) play(only);
  }, Math.max(400, S.settings.pause * 0.6));
}

async function play(moveId) {
  if (S.busy || !S.tableId) return;
  S.busy = true;
  setState("busy");
  for (const b of document.querySelectorAll("#hand button, #moves button, #info button")) b.disabled = true;
  try {
    // the decision this move answers: the server plays it only while the table is there
    const body = {move: moveId, decisions: S.tv.decisions};
    await update(await sendMove(body));
  } catch (e) {
    S.busy = false;
    if (e instanceof ApiError && e.kept) { await catchUp(KEPT_TEXT, true); return; }
    if (e instanceof ApiError && (e.status === 409 || e.status === 422) && S.tv && !S.tv.over) {
      await catchUp(e.status === 409 ? STALE_TEXT : REFUSED_TEXT);
      return;
    }
    if (S.tv) render(S.tv);
    handleError(e);
  }
}

// a move, sent again while the server gives no answer (it restarts): the same decision, so
// the server plays it once - a 409 then says it was kept before the answer was lost
const RESEND_FOR = 120000;
async function sendMove(body) {
  const path = `/tables/${encodeURIComponent(S.tableId)}/act`;
  const until = Date.now() + RESEND_FOR;
  for (let resent = false; ; resent = true) {
    try {
      const tv = await api("POST", path, body);
      if (resent) showNotice("");
      return tv;
    } catch (e) {
      if (!(e instanceof ApiError) || e.status !== 0 || Date.now() > until) {
        if (resent && e instanceof ApiError && e.status === 409) e.kept = true;  // before the restart
        throw e;
      }
      showNotice("The server does not answer (it may be restarting); your move will be sent again in a moment.");
      await sleep(1000);
    }
  }
}

// the table again, by its id, from a server that restarted or that another process answers
// for (a new instance): a server with a store resumes it; one without says 404 - gone
async function reload() {
  if (!S.tableId) return;
  const id = S.tableId;
  S.instance = null;
  await resume(id, true);
}

// what a player reads when a move was not played (never the server's developer wording)
const STALE_TEXT = "Your click came too late: the table had already moved on (a move from " +
  "another tab or window, or a click that arrived twice), so nothing was played. Here is the " +
  "table as it is now - please choose again.";
const KEPT_TEXT = "The server restarted while your move was on its way; it had kept the move, " +
  "so it was played once. Here is the table as it is now.";
const REFUSED_TEXT = "That move is not possible now; nothing was played. Here is the table " +
  "as it is now - please choose again.";

// the table as it is now (after a stale move, or a move made elsewhere), with a message
async function catchUp(message, notice) {
  const id = encodeURIComponent(S.tableId);
  try {
    const tv = await api("GET", `/tables/${id}`);
    const missed = await api("GET", `/tables/${id}/events?after=${S.lastEvent}`);
    addEvents(tv, missed.events);
    await update({...tv, events: []}, {quiet: true});
    if (notice) showNotice(message);
    else showError(message);
  } catch (e) {
    if (S.tv) render(S.tv);
    handleError(e);
  }
}

// -- following the table: a cheap look at its version now and then -------------------------

async function poll() {
  const tv = S.tv;
  if (!S.tableId || !tv || S.busy || document.hidden || document.body.dataset.state === "gone") return;
  let v;
  try {
    v = await api("GET", `/tables/${encodeURIComponent(S.tableId)}/version`);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404 && S.tv === tv) tableGone();
    return;  // a server that does not answer now may answer at the next look
  }
  if (S.tv !== tv || S.busy) return;
  if (v.instance !== S.instance) { await reload(); return; }
  if (v.decisions !== tv.decisions || v.over !== tv.over) {
    await catchUp("The table moved on elsewhere (another tab or window); here it is now.", true);
  }
}

function schedulePoll() {
  setTimeout(async () => {
    try { await poll(); } finally { schedulePoll(); }
  }, Math.max(250, S.settings.poll));
}

// -- drawing the table -----------------------------------------------------------------------

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

// an opponent's level (easy, medium, hard) from the choices the page offered
function levelOf(game, spec) {
  const g = S.choices && S.choices.games && S.choices.games[game];
  const o = g && g.opponents.find(x => x.spec === spec);
  return o && o.level ? o.level : "";
}

// the seats in play order from the person's left: the others across the top, you below
function seatOrder(tv) {
  const n = tv.players.length;
  return Array.from({length: n - 1}, (_, k) => (tv.seat + 1 + k) % n);
}

function seatNode(tv, s, winner) {
  const v = tv.view, names = seatNames(tv), p = tv.players[s];
  const cols = columns(tv.screen && tv.screen.seat_columns);
  const dealer = "dealer" in v ? v.dealer : v.start_player;
  const role = "dealer" in v ? "dealer" : "start";
  const cls = ["seat", v.to_act === s ? "to-act" : "", p.human ? "human" : "",
               winner === s ? "took" : ""].join(" ").replace(/\s+/g, " ").trim();
  const level = p.human ? "" : [p.policy, levelOf(tv.game, p.policy)].filter(Boolean).join(" \u00b7 ");
  const node = el("div", {class: cls, "data-seat": s, "data-testid": `seat-${s}`},
                  el("span", {class: "who", text: names[s]}),
                  s === dealer ? el("span", {class: "role", text: role}) : null,
                  level ? el("span", {class: "level", text: ` ${level}`}) : null,
                  " ", el("span", {class: "total", "data-testid": `total-${s}`, text: String(v.totals[s])}),
                  el("span", {class: "level", text: " pts"}));
  for (const [title, f] of cols) {
    node.append(el("span", {class: "cols-line", "data-col": title},
                   `${title}: `, el("span", {class: "col-text"}, richText(tv.game, f(s)))));
  }
  return node;
}

// each player's card of the trick in front of them (``trick`` from the view or a trick event)
function renderSeats(tv, opts) {
  const o = opts || {};
  const trick = o.trick !== undefined ? o.trick : tv.view.trick;
  const n = tv.players.length;
  const played = new Map();
  if (trick && trick.cards) {
    const seats = trick.seats || trick.cards.map((_, k) => (trick.leader + k) % n);
    trick.cards.forEach((c, k) => played.set(seats[k], c));
  }
  const slot = s => {
    const box = el("div", {class: "slot", "data-seat": s});
    if (played.has(s)) box.append(cardNode(tv.game, played.get(s)));
    return box;
  };
  const others = clear($("others"));
  for (const s of seatOrder(tv)) {
    others.append(el("div", {class: "seat-col"}, seatNode(tv, s, o.winner), slot(s)));
  }
  const me = clear($("me"));
  me.append(seatNode(tv, tv.seat, o.winner), slot(tv.seat));
  const badges = clear($("badges"));
  for (const b of (tv.screen && tv.screen.badges) || []) {
    badges.append(el("span", {class: `badge ${styleClass(b.style)}`.trim(), "data-testid": "badge"},
                     richText(tv.game, b.text)));
  }
  $("trick-caption").textContent = "";
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
  if ("high" in t) {
    const low = names[t.low_seat], high = names[t.high_seat];
    return `${low} ${verb(low, "take")} ${faceText(t.high)}, ${high} ${verb(high, "take")} ` +
      `the rest and ${verb(high, "lead")}`;
  }
  if (t.winner === null || t.winner === undefined) return "All Aces: the cards leave the game";
  const who = names[t.winner];
  let text = `${who} ${verb(who, "take")} the trick`;
  if ("gift" in t) text += ` (the Joker's gift from ${names[t.joker_seat]}: ${t.gift})`;
  return text;
}

// a card's face as plain text (its text and sub), for a caption
function faceText(card) {
  const g = S.tv ? S.tv.game : (S.record ? S.record.game : null);
  if (!g) return card;
  const c = cardFacts(g, card);
  return c.text + (c.sub || "");
}

function renderLastTrick(tv) {
  const names = seatNames(tv), n = names.length;
  const box = clear($("last-trick"));
  const t = tv.last_trick;
  if (!t) { box.append(el("span", {class: "small", text: "none yet"})); return; }
  box.append(trickNode(tv.game, t, names, n));
  const v = tv.view;
  const now = v.round !== undefined ? v.round : v.deal;
  const earlier = t.round !== now ? `(round ${t.round + 1}) ` : "";
  box.append(el("span", {class: "small", "data-testid": "last-trick-outcome",
                         text: earlier + outcomeText(t, names)}));
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
  if (!v.hand.length) { box.append(el("span", {class: "small", text: "(no cards in your hand)"})); return; }
  for (const [suit, cards] of groupBySuit(game, v.hand)) {
    const name = suitFacts(game, suit).name;
    const group = el("div", {class: "suit-group", title: name}, el("span", {class: "suit-name", text: name}));
    for (const c of cards) {
      const m = legal.get(c);
      group.append(cardNode(game, c, {legal: !!m && !S.busy, moveId: m ? m.id : null,
                                      onClick: () => m && play(m.id)}));
    }
    box.append(group);
  }
}

function renderMoves(tv) {
  const box = clear($("moves"));
  for (const m of tv.moves) {
    const words = m.text || m.label;
    const b = el("button", {type: "button", class: "move", "data-move-id": m.id,
                            "data-kind": m.kind, "data-testid": `move-${m.n}`},
                 el("span", {class: "n", text: `${m.n}:`}),
                 m.card
                   ? [m.kind === "card" ? "" : `${words.split(" ")[0]} `, cardNode(tv.game, m.card, {small: true})]
                   : words);
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
  $("table").dataset.tableId = S.tableId || "";
  renderSeats(tv);
  renderInfo(tv);
  renderLastTrick(tv);
  renderHand(tv);
  renderMoves(tv);
  if ($("hint").dataset.decisions !== String(tv.decisions)) {  // a hint is for one decision
    show($("hint"), false);
    $("hint").dataset.decisions = String(tv.decisions);
  }
  $("hint-button").hidden = tv.over;
  $("hint-button").disabled = !tv.moves.length;
  show($("gameover"), tv.over);
}

// a round's summary: folded away once a newer round ends, so the page stays short
function renderRoundEnd(tv, e) {
  const names = seatNames(tv), n = names.length;
  const extra = columns(e.columns);  // the game's columns of the round summary
  const hasScores = e.scores !== null && e.scores !== undefined;
  const reasons = Array.isArray(e.reasons) ? e.reasons : null;  // "how it scored", per seat
  const tb = el("table", {class: "grid", "data-testid": `round-${e.round}`});
  tb.append(el("tr", {}, el("th", {text: "Seat"}), ...extra.map(([t]) => el("th", {text: t})),
               hasScores ? el("th", {class: "num", text: "Round score"}) : null,
               el("th", {class: "num", text: "Total"}),
               reasons ? el("th", {text: "How it scored"}) : null));
  for (let s = 0; s < n; s++) {
    tb.append(el("tr", {class: s === tv.seat ? "human" : null}, el("td", {text: names[s]}),
                 ...extra.map(([, f]) => el("td", {}, richText(tv.game, f(s)))),
                 hasScores ? el("td", {class: "num", text: String(e.scores[s])}) : null,
                 el("td", {class: "num", text: String(e.totals[s])}),
                 reasons ? el("td", {"data-testid": `reason-${e.round}-${s}`},
                              richText(tv.game, reasons[s] || "")) : null));
  }
  const mine = hasScores ? `: you ${e.scores[tv.seat] >= 0 ? "+" : ""}${e.scores[tv.seat]}` : "";
  const fold = el("details", {"data-round": e.round},
                  el("summary", {text: `End of round ${e.round + 1}${mine}, total ${e.totals[tv.seat]}`}), tb);
  fold.open = true;
  const box = $("rounds");
  for (const older of box.querySelectorAll("details")) older.open = false;
  box.prepend(fold);
}

async function renderGameOver(tv) {
  const names = seatNames(tv), s = tv.summary;
  const tb = clear($("final"));
  tb.append(el("tr", {}, el("th", {text: "Place"}), el("th", {text: "Seat"}), el("th", {text: "Player"}),
               el("th", {class: "num", text: "Total"})));
  // places by standard competition ranking (1, 2, 2, 4); older servers send only placement
  const place = seat => (s.places ? s.places[seat] : s.placement[seat] + 1);
  const order = names.map((_, k) => k).sort((a, b) => (place(a) - place(b)) || (a - b));
  for (const seat of order) {
    const pl = tv.players[seat];
    tb.append(el("tr", {class: pl.human ? "human" : null},
                 el("td", {text: String(place(seat))}), el("td", {text: names[seat]}),
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
  const table = S.tableId;
  const box = $("analysis");
  if (box.dataset.table !== table) {  // an analysis is of one table
    clear(box);
    show(box, false);
    box.dataset.table = table;
    box.removeAttribute("data-state");
  }
  try {
    const record = await api("GET", `/tables/${encodeURIComponent(table)}/record`);
    if (S.tableId !== table) return;
    S.record = record;
    const blob = new Blob([JSON.stringify(record, null, 1)], {type: "application/json"});
    if (link.href && link.href.startsWith("blob:")) URL.revokeObjectURL(link.href);
    link.href = URL.createObjectURL(blob);
    link.download = `stichzoo-${tv.game}-${tv.seed}.json`;
    link.dataset.ready = "1";
    if (S.replayOf !== table) {  // once per table: a later look must not move the stepper
      S.replayOf = table;
      openReplay(record, names, tv.players);
    }
  } catch (e) {
    handleError(e);
  }
}

// -- hints -----------------------------------------------------------------------------------

// the search's suggestion for this decision (POST /tables/ID/hint): the move, marked in the
// hand and the moves, and how many points over the rest of the round each other move is
// estimated to lose
async function askHint() {
  const tv = S.tv;
  if (!tv || tv.over || !tv.moves.length || S.busy) return;
  const box = clear($("hint"));
  show(box, true);
  box.dataset.state = "loading";
  box.append("The search is thinking...");
  try {
    const h = await api("POST", `/tables/${encodeURIComponent(S.tableId)}/hint`, {decisions: tv.decisions});
    if (S.tv !== tv) return;  // the table moved on meanwhile
    clear(box);
    box.dataset.state = "shown";
    box.dataset.move = String(h.move.id);
    const face = m => (m.kind === "card" ? cardNode(tv.game, m.label, {inline: true}) : richText(tv.game, m.text));
    box.append(el("div", {}, el("strong", {text: "Suggested: "}), face(h.move), ` (${h.why})`));
    const others = h.values.filter(v => v.id !== h.move.id);
    if (others.length) {
      const list = el("ol", {});
      for (const v of others) {
        const loss = v.difference === null ? (v.reason || "not rated")
          : `${v.difference <= 0 ? "" : "+"}${v.difference} points` +
            (v.difference_stderr !== null ? ` (\u00b1${v.difference_stderr})` : "");
        list.append(el("li", {"data-move-id": v.id}, face(v), `: ${loss}`));
      }
      box.append(el("div", {class: "small", text: "The others, estimated against it over the rest of the round:"}), list);
    }
    for (const b of document.querySelectorAll(`#hand button[data-move-id="${h.move.id}"], ` +
                                              `#moves button[data-move-id="${h.move.id}"], ` +
                                              `#info button[data-move-id="${h.move.id}"]`)) {
      b.classList.add("hinted");
    }
  } catch (e) {
    if (S.tv !== tv) return;
    clear(box);
    box.dataset.state = "missing";
    box.append(e instanceof ApiError && e.status === 409 ? "The table moved on; ask again."
                                                         : "No hint available now.");
  }
}

// -- the analysis after the game -------------------------------------------------------------

//: how many of the biggest estimated losses the analysis marks
const BIG_LOSSES = 3;

// each of the person's decisions with a choice beside the search's best, with the estimated
// loss (GET /tables/ID/analysis: computed once on the server, a few seconds at most)
async function showAnalysis() {
  const tv = S.tv, table = S.tableId;
  if (!tv || !tv.over) return;
  const box = clear($("analysis"));
  show(box, true);
  box.dataset.table = table;
  box.dataset.state = "loading";
  box.append("The search looks at each of your decisions...");
  try {
    const a = await api("GET", `/tables/${encodeURIComponent(table)}/analysis`);
    if (S.tableId !== table) return;
    clear(box);
    box.dataset.state = "shown";
    const face = m => (m.kind === "card" ? cardNode(tv.game, m.label, {inline: true}) : richText(tv.game, m.text));
    const losses = a.decisions.map(e => e.loss || 0).filter(x => x > 0).sort((x, y) => y - x);
    const big = losses.length ? losses[Math.min(BIG_LOSSES, losses.length) - 1] : Infinity;
    const tb = el("table", {class: "grid", "data-testid": "analysis-table"},
                  el("tr", {}, el("th", {class: "num", text: "Round"}), el("th", {text: "Your move"}),
                     el("th", {text: "The search's move"}), el("th", {class: "num", text: "Estimated loss"})));
    for (const e of a.decisions) {
      const loss = e.loss === null ? "not rated"
        : String(e.loss) + (e.loss_stderr !== null && !e.same ? ` \u00b1 ${e.loss_stderr}` : "");
      tb.append(el("tr", {class: e.loss !== null && e.loss > 0 && e.loss >= big ? "big-loss" : null,
                          "data-decision": e.decision},
                   el("td", {class: "num", text: String(e.round + 1)}), el("td", {}, face(e.move)),
                   el("td", {}, e.same ? "the same" : face(e.best)), el("td", {class: "num", text: loss})));
    }
    const agreed = a.decisions.filter(e => e.same).length;
    box.append(el("p", {class: "small", text:
      `${a.searched} decisions with a choice (forced moves left out); the search agreed with ` +
      `${agreed}. The loss is the search's estimate of the points your move cost over the rest ` +
      `of the round (\u00b1 one standard error); the biggest are marked. In all: ${a.total_loss}.`}), tb);
  } catch (e) {
    if (S.tableId !== table) return;
    clear(box);
    box.dataset.state = "missing";
    box.append(e instanceof ApiError && e.status === 503 ? "The server is busy; try again in a few seconds."
                                                         : "No analysis available now.");
  }
}

// -- the rules -------------------------------------------------------------------------------

// The game's rules in plain words, from one source beside the game (GET /tables/rules/GAME,
// {"game", "title", "markdown", "html"}).  The html is the server's own rendering of the
// project's text; it is still cleaned here: only plain text tags, no scripts, no attributes
// but a link's address.
const RULE_TAGS = new Set(["P", "H1", "H2", "H3", "H4", "H5", "H6", "UL", "OL", "LI", "STRONG", "EM",
  "B", "I", "CODE", "PRE", "TABLE", "THEAD", "TBODY", "TR", "TH", "TD", "BR", "HR", "BLOCKQUOTE",
  "A", "SPAN", "DIV", "DL", "DT", "DD", "SUP", "SUB"]);

function cleanHtml(html) {
  const doc = new DOMParser().parseFromString(String(html), "text/html");
  const copy = (node) => {
    if (node.nodeType === Node.TEXT_NODE) return document.createTextNode(node.textContent);
    if (node.nodeType !== Node.ELEMENT_NODE) return null;
    const kids = [...node.childNodes].map(copy).filter(Boolean);
    if (!RULE_TAGS.has(node.tagName)) {
      if (["SCRIPT", "STYLE", "IFRAME", "OBJECT"].includes(node.tagName)) return null;
      const frag = document.createDocumentFragment();
      frag.append(...kids);
      return frag;
    }
    const out = document.createElement(node.tagName.toLowerCase());
    const href = node.getAttribute("href");
    if (node.tagName === "A" && href && /^(https?:|#)/.test(href)) {
      out.setAttribute("href", href);
      out.setAttribute("rel", "noreferrer");
      out.setAttribute("target", "_blank");
    }
    out.append(...kids);
    return out;
  };
  const frag = document.createDocumentFragment();
  frag.append(...[...doc.body.childNodes].map(copy).filter(Boolean));
  return frag;
}

async function showRules() {
  const game = S.tv ? S.tv.game : $("game").value;
  const body = clear($("rules-body"));
  $("rules-title").textContent = `${titleOf(game)}: rules`;
  show($("rules-panel"), true);
  $("rules-panel").dataset.state = "loading";
  try {
    const r = await api("GET", `/tables/rules/${encodeURIComponent(game)}`);
    if (r.title) $("rules-title").textContent = r.title;
    body.append(cleanHtml(r.html || ""));
    $("rules-panel").dataset.state = "shown";
  } catch (e) {
    body.append(el("p", {text: e.status === 0 ? e.message : "The rules are not available from this server."}));
    $("rules-panel").dataset.state = "missing";
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

async function resume(tableId, again) {
  S.tableId = tableId;
  S.tv = null;
  const seq = ++S.seq;
  show($("setup"), false);
  try {
    const tv = await api("GET", `/tables/${encodeURIComponent(tableId)}`);
    if (seq !== S.seq) return;
    const all = await api("GET", `/tables/${encodeURIComponent(tableId)}/events?after=-1`);
    if (seq !== S.seq) return;
    S.instance = tv.instance;
    beginTable({...tv, events: []});
    addEvents(tv, all.events);
    if (again) showNotice("The server restarted; your table is back as it was.");
  } catch (e) {
    if (seq === S.seq) handleError(e);
  }
}

// the address drives the page: #table=ID shows that table, no table the start page
function tableInAddress() {
  const m = /^#table=(.+)$/.exec(location.hash);
  return m ? decodeURIComponent(m[1]) : null;
}

async function route() {
  const id = tableInAddress();
  if (id && id === S.tableId) return;
  if (id) await resume(id);
  else if (S.tableId || document.body.dataset.state !== "setup") toSetup();
}

async function main() {
  loadSettings();
  $("set-pause").addEventListener("change", saveSettings);
  $("set-auto").addEventListener("change", saveSettings);
  $("setup-form").addEventListener("submit", startTable);
  $("gone-new").addEventListener("click", () => toSetup());
  $("new-table").addEventListener("click", () => {
    if (running()) {
      if (!confirm("Leave this game? It is still running and will be closed.")) return;
      api("DELETE", `/tables/${encodeURIComponent(S.tableId)}`).catch(() => {});
    }
    toSetup(true);
  });
  $("again").addEventListener("click", () => toSetup(true));
  $("rules-button").addEventListener("click", showRules);
  $("hint-button").addEventListener("click", askHint);
  $("analysis-button").addEventListener("click", showAnalysis);
  $("rules-close").addEventListener("click", () => show($("rules-panel"), false));
  document.addEventListener("keydown", e => { if (e.key === "Escape") show($("rules-panel"), false); });
  // leaving a running game (closing the tab, another address) asks first
  window.addEventListener("beforeunload", e => {
    if (running()) { e.preventDefault(); e.returnValue = ""; }
  });
  window.addEventListener("popstate", route);
  window.addEventListener("hashchange", route);
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
  show($("rules-button"), true);
  if (tableInAddress()) await route();
  else toSetup();
  schedulePoll();
}

document.addEventListener("DOMContentLoaded", main);
