// cairn arena pages. Reads only the JSON under /api/ and builds the page
// with DOM calls: text from bots and owners goes in through textContent
// (el() below), never as HTML.
"use strict";

const main = document.getElementById("main");

// el("a", {href: "/x"}, "text", child...): an element; strings become text nodes.
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    // Through the CSSOM: the content security policy refuses style attributes.
    else if (key === "style") Object.assign(node.style, value);
    else if (key === "on") for (const [event, f] of Object.entries(value)) node.addEventListener(event, f);
    else node.setAttribute(key, String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function show(...children) {
  main.replaceChildren();
  append(main, children);
}

// A read the arena sheds (429, 503) is asked again after the wait it names,
// a few times: one page load makes several reads at once.
async function api(path, attempts = 6) {
  const response = await fetch(path, { headers: { accept: "application/json" } });
  const body = await response.json().catch(() => ({ error: "unreadable answer" }));
  if ((response.status === 429 || response.status === 503) && attempts > 1) {
    const wait = Number(body.retry_after_ms) || 1000 * Number(response.headers.get("retry-after")) || 250;
    await new Promise((resolve) => setTimeout(resolve, Math.min(wait, 5000)));
    return api(path, attempts - 1);
  }
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

function table(headers, rows) {
  const head = el("tr", {}, headers.map((h) => el("th", { class: h.startsWith(">") ? "num" : "" }, h.replace(/^>/, ""))));
  return el("table", {}, el("thead", {}, head), el("tbody", {}, rows));
}

function td(content, cls) {
  return el("td", { class: cls }, content);
}

function when(ms) {
  return ms ? new Date(ms).toISOString().replace("T", " ").slice(0, 19) + " UTC" : "";
}

function variantName(variant) {
  return variant || "base";
}

function botLink(name, version) {
  const link = el("a", { href: "/bots/" + encodeURIComponent(name), class: "bot" }, name);
  return version === undefined ? link : el("span", {}, link, "@" + version);
}

function progressCell(done, total) {
  return el("span", {}, el("progress", { max: Math.max(total, 1), value: done }), " " + done + "/" + total);
}

// ---- leaderboards and tournaments -------------------------------------

async function homePage() {
  const [boards, tournaments] = await Promise.all([api("/api/leaderboards"), api("/api/tournaments")]);
  document.title = "cairn arena";
  const sections = [el("h1", {}, "Leaderboards")];
  if (boards.length === 0) sections.push(el("p", { class: "muted" }, "No rated games yet."));
  for (const board of boards) {
    sections.push(el("h2", { class: "board-title" }, board.game + " · " + variantName(board.variant)));
    sections.push(board.solo.length ? soloTable(board.solo) : leaderboardTable(board));
  }
  const list = el("div", { id: "tournaments" });
  sections.push(el("h1", {}, "Tournaments"), list);
  show(sections);
  renderTournaments(list, tournaments);
  if (!tournaments.every(settled)) follow(list, async () => {
    const fresh = await api("/api/tournaments");
    renderTournaments(list, fresh);
    return fresh.every(settled);
  });
}

// A board ranked by the fitted rating (the CLI's and the API's order), the
// live rating beside it; provisional bots in their own table below.
function leaderboardTable(board) {
  const established = board.rows.filter((row) => !row.provisional);
  const provisional = board.rows.filter((row) => row.provisional);
  const parts = [];
  if (board.fit) {
    const sizes = board.fit.table_sizes.length > 1 ? " at " + board.fit.table_sizes.join(", ") + " seats on one scale" : "";
    parts.push(el("p", { class: "muted fit" }, "Rating: " + board.fit.method + " maximum likelihood over " +
      plural(board.fit.games, "game") + sizes + " (" + plural(board.fit.deals, "deal") + "), 95% interval by bootstrap over deals."));
  }
  if (established.length || !provisional.length) parts.push(ratedTable(established));
  if (provisional.length) {
    parts.push(el("h3", { class: "provisional" }, "Provisional: fewer than " + board.provisional_deals + " deals"));
    parts.push(ratedTable(provisional));
  }
  return el("div", { class: "board" }, parts);
}

// A fitted rating and its interval as two cells: an unbeaten bot shows the
// least rating its record allows (and ranks above every rated bot), a winless
// one the most (and ranks below them).
function fittedCells(fitted) {
  const round = (value) => value === null ? "unbounded" : value.toFixed(0);
  if (fitted === null) return [td(""), td("")];
  if (fitted.unrated === undefined) return [td(round(fitted.rating), "num rating"), td(intervalText(fitted.low, fitted.high), "num")];
  const side = fitted.unrated === "winless" ? ["≤ ", "at most "] : ["≥ ", "at least "];
  if (fitted.bound === null || fitted.unrated === "unconnected") return [td("–", "num rating"), td(el("span", { title: fitted.reason }, "not measured"))];
  return [td(side[0] + fitted.bound.toFixed(0), "num rating"), td(el("span", { title: fitted.reason }, side[1] + fitted.bound.toFixed(0)), "num")];
}

// An interval in words where an end is open, as `cairn ratings` writes it:
// `[1480, 1612]`, `at least 1612`, `at most 1480`, `unbounded`.
function intervalText(low, high) {
  if (low !== null && high !== null) return "[" + low.toFixed(0) + ", " + high.toFixed(0) + "]";
  if (low !== null) return "at least " + low.toFixed(0);
  if (high !== null) return "at most " + high.toFixed(0);
  return "unbounded";
}

// The live model's rating, beside the fitted one (Weng-Lin lives around 25);
// Elo keeps no uncertainty, so it shows none.
function liveCell(row) {
  if (row.rating === null) return "";
  const digits = row.model === "weng-lin" ? 1 : 0;
  const spread = row.model === "elo" ? "" : " ± " + row.uncertainty.toFixed(digits);
  return row.model + " " + row.rating.toFixed(digits) + spread;
}

function ratedTable(rows) {
  return el("table", { class: "leaderboard" },
    el("thead", {}, el("tr", {}, ["#", "bot", "owner", "rating", "95% interval", "live", "games", "W / D / L", "forfeits", "deals"].map((h) => el("th", {}, h)))),
    el("tbody", {}, rows.map((row) =>
      el("tr", { class: "leader" },
        td(row.position, "num"),
        td(botLink(row.bot, row.version)),
        td(row.owner),
        ...fittedCells(row.fitted),
        td(liveCell(row), "num live"),
        td(row.games, "num"),
        td(row.wins + " / " + row.draws + " / " + row.losses, "num"),
        td(row.forfeits, "num"),
        td(row.deals, "num")))));
}

// A solo board: bots ranked by their mean score per deal.
function soloTable(rows) {
  const bound = (value) => value === null ? "unbounded" : value.toFixed(1);
  return el("table", { class: "leaderboard" },
    el("thead", {}, el("tr", {}, ["#", "bot", "mean score", "95% interval", "deals", "title"].map((h) => el("th", {}, h)))),
    el("tbody", {}, rows.map((row) =>
      el("tr", { class: "leader" },
        td(row.position, "num"),
        td(botLink(row.bot, row.version)),
        td(row.mean.toFixed(1), "num rating"),
        td(bound(row.low) + " .. " + bound(row.high), "num"),
        td(row.deals, "num"),
        td(row.title || "")))));
}

// "1 bot", "3 bots".
function plural(n, word) {
  return n + " " + word + (n === 1 ? "" : "s");
}

// Whether a tournament will change no more: every game recorded, every
// match played or given up, or cancelled by its owner.
function settled(t) {
  return t.cancelled_at !== null || t.games_done >= t.games_total || t.matches_done + t.matches_failed >= t.matches_total;
}

// What became of a tournament's matches besides being played.
function givenUp(t) {
  return (t.matches_failed ? " · " + t.matches_failed + " failed" : "") + (t.cancelled_at !== null ? " · cancelled" : "");
}

function renderTournaments(list, tournaments) {
  if (tournaments.length === 0) {
    list.replaceChildren(el("p", { class: "muted" }, "No tournaments yet."));
    return;
  }
  list.replaceChildren(table(["id", "game", "variant", "owner", ">bots", "games", "created"],
    tournaments.map((t) => el("tr", {},
      td(el("a", { href: "/tournaments/" + t.id }, "#" + t.id)),
      td(t.game), td(variantName(t.variant)), td(t.owner), td(t.entries, "num"),
      td([progressCell(t.games_done, t.games_total), givenUp(t)]),
      td(when(t.created_at))))));
}

// Calls `poll` every two seconds until it answers true or the page changes.
function follow(node, poll) {
  const timer = setInterval(async () => {
    if (!node.isConnected) return clearInterval(timer);
    try {
      if (await poll()) clearInterval(timer);
    } catch (error) {
      clearInterval(timer);
    }
  }, 2000);
}

// ---- a tournament -------------------------------------------------------

// The page of games asked for in the address (`?page=N`, from 0).
function gamesPageAsked() {
  const page = Number(new URLSearchParams(location.search).get("page"));
  return Number.isInteger(page) && page > 0 ? page : 0;
}

async function tournamentPage(id) {
  const page = gamesPageAsked();
  const path = "/api/tournaments/" + encodeURIComponent(id) + (page ? "?page=" + page : "");
  const data = await api(path);
  const t = data.tournament;
  document.title = "tournament #" + t.id + " · cairn arena";
  const progress = el("p", { id: "progress" });
  const standings = el("div", { id: "standings" });
  const suspended = el("div", { id: "suspensions" });
  const games = el("div", { id: "games" });
  show(el("h1", {}, "Tournament #" + t.id + " · " + t.game + " · " + variantName(t.variant)),
    el("p", { class: "muted" }, data.standings.format + " · by " + t.owner + " · " + plural(t.entries, "bot") + " · " + plural(t.seats_per_game, "seat") + " per game · created " + when(t.created_at)),
    progress, standings, suspended, games);
  const render = (fresh) => {
    const tt = fresh.tournament;
    progress.replaceChildren(progressCell(tt.games_done, tt.games_total), " games recorded · " + tt.matches_done + "/" + tt.matches_total + " matches played" + givenUp(tt));
    standings.replaceChildren(...standingsBlocks(fresh.standings));
    suspended.replaceChildren(...suspensionList(fresh.suspensions || []));
    games.replaceChildren(el("h2", {}, "Games"), gamesPager(fresh, tt.games_total),
      gamesTable(fresh.games, fresh.standings.format === "swiss" || fresh.standings.format === "knockout"));
    return settled(tt);
  };
  if (!render(data)) follow(games, async () => render(await api(path)));
}

// Links to the other pages of a tournament's games.
function gamesPager(data, total) {
  const pages = Math.max(1, Math.ceil(total / data.games_per_page));
  if (pages === 1) return "";
  const link = (page, label) => el("a", { href: "?page=" + page, class: "page-link", "data-page": page }, label);
  return el("p", { id: "pager" }, data.page > 0 ? link(data.page - 1, "« previous") : "",
    " page " + (data.page + 1) + " of " + pages + " ", data.page + 1 < pages ? link(data.page + 1, "next »") : "");
}

function eloText(elo) {
  return typeof elo === "number" ? (elo >= 0 ? "+" : "") + elo.toFixed(0) : elo;
}

// The tournament's own results, and what its format adds.
function standingsBlocks(st) {
  const results = st.solo.length ? soloTable(st.solo) : resultsTable(st.results);
  const blocks = [el("h2", {}, "Results in this tournament"), results];
  if (st.crosstable.length) blocks.push(el("h2", {}, "Crosstable"), crosstable(st));
  if (st.format === "swiss" || st.format === "gauntlet") blocks.push(el("h2", {}, "Standings by the " + st.format + "'s rules"),
    table([">#", "bot", ">score", ">games"], st.format_standings.map((row, i) => el("tr", {}, td(i + 1, "num"), td(row.bot), td(row.score.toFixed(2), "num"), td(row.games, "num")))));
  if (st.bracket.length) blocks.push(el("h2", {}, "Bracket"), bracket(st.bracket));
  if (st.sprt) blocks.push(el("h2", {}, "SPRT"), sprtBlock(st.sprt));
  return blocks;
}

function resultsTable(rows) {
  if (rows.every((row) => row.games === 0)) return el("p", { class: "muted", id: "results" }, "No game recorded yet.");
  const node = table([">#", "bot", ">games", ">W", ">D", ">L", ">points", ">score", ">Elo", "95% interval"], rows.map((row, i) => el("tr", { "data-entry": row.entry },
    td(i + 1, "num"), td(row.bot), td(row.games, "num"), td(row.wins, "num"), td(row.draws, "num"), td(row.losses, "num"),
    td(row.points.toFixed(1), "num"), td(row.score === null ? "" : (100 * row.score).toFixed(1) + "%", "num"),
    td(row.elo === null ? "" : eloText(row.elo), "num"), td(row.elo === null ? "" : eloText(row.elo_low) + " .. " + eloText(row.elo_high)))));
  node.id = "results";
  return el("div", {}, node, el("p", { class: "legend" }, "W/D/L count each other seat at the table once; the Elo is against this tournament's field, with its 95% interval."));
}

// Each row entry's W-D-L against each column entry, in the results' order.
function crosstable(st) {
  const order = st.results.map((row) => row.entry);
  const cell = (r, c) => st.crosstable.find((x) => x.row === r && x.column === c);
  const node = table(["", "bot"].concat(order.map((_, i) => ">" + (i + 1))), order.map((r, i) => el("tr", { "data-entry": r },
    td(i + 1, "num"), td(st.entries[r]),
    order.map((c) => {
      const x = cell(r, c);
      return el("td", { class: "num", "data-column": c }, r === c ? "×" : x ? x.wins + "-" + x.draws + "-" + x.losses : "–");
    }))));
  node.id = "crosstable";
  return el("div", {}, node, el("p", { class: "legend" }, "The row's wins-draws-losses against the column."));
}

function bracket(ties) {
  const rounds = [...new Set(ties.map((tie) => tie.round))];
  return el("div", { id: "bracket", class: "bracket" }, rounds.map((round) => el("div", { class: "bracket-round", "data-round": round },
    el("h3", {}, "Round " + round),
    ties.filter((tie) => tie.round === round).map((tie) => el("div", { class: "tie" + (tie.winner ? " decided" : "") },
      tie.first === null || tie.second === null ? (tie.winner || "?") + " has a bye"
        : tie.first + " " + tie.first_points.toFixed(1) + " – " + tie.second_points.toFixed(1) + " " + tie.second,
      el("b", { class: "winner" }, tie.winner ? " → " + tie.winner : " · undecided"))))));
}

function sprtBlock(sprt) {
  const verdicts = { h1: "H1 accepted: the challenger is elo1 stronger", h0: "H0 accepted: the challenger is not elo1 stronger", undecided: "undecided" };
  return el("div", { id: "sprt" },
    el("p", {}, el("b", { id: "sprt-verdict", "data-verdict": sprt.verdict }, verdicts[sprt.verdict] || sprt.verdict)),
    el("p", {}, "elo0 " + sprt.elo0 + " · elo1 " + sprt.elo1 + " · alpha " + sprt.alpha + " · beta " + sprt.beta),
    el("p", {}, "LLR ", el("span", { id: "sprt-llr" }, sprt.llr.toFixed(2)), " (bounds " + sprt.lower_bound.toFixed(2) + " .. " + sprt.upper_bound.toFixed(2) + ")",
      el("progress", { max: sprt.upper_bound - sprt.lower_bound, value: Math.min(Math.max(sprt.llr - sprt.lower_bound, 0), sprt.upper_bound - sprt.lower_bound) })),
    el("p", {}, "deal pairs by the challenger's points (0 / ½ / 1 / 1½ / 2): " + sprt.pentanomial.join(" / ")));
}

// Versions suspended for forfeiting too often (issue 32): a block of its own.
function suspensionList(suspensions) {
  if (suspensions.length === 0) return [];
  return [el("h2", {}, "Suspended (" + suspensions.length + ")"),
    table(["bot", ">games", ">forfeits", "reason"], suspensions.map((s) => el("tr", { class: "forfeit" },
      td(botLink(s.bot_name, s.version)), td(s.games, "num"), td(s.forfeits, "num"), td(s.reason, "detail")))),
    el("p", { class: "muted" }, "Their played games are kept, their unplayed ones dropped.")];
}

function seatResult(seat) {
  const parts = [botLink(seat.bot_name, seat.version)];
  if (seat.score !== null) parts.push(" " + seat.score + " (rank " + seat.rank + ")");
  if (seat.forfeit_reason) parts.push(el("span", { class: "error" }, " forfeit: " + seat.forfeit_reason));
  return el("span", { class: "seat" }, parts);
}

function gamesTable(games, byRound) {
  const rows = [];
  let round = null;
  for (const g of games) {
    if (byRound && g.round !== round) {
      round = g.round;
      rows.push(el("tr", { class: "round-head", "data-round": round + 1 }, el("th", { colspan: 5 }, "Round " + (round + 1))));
    }
    const recorded = g.seats.every((s) => s.score !== null);
    rows.push(el("tr", {},
      td(g.name, "num"), td((g.match_index + 1) + (g.game_index ? " game " + (g.game_index + 1) : ""), "num"),
      td(recorded ? "done" : g.status),
      td(g.seats.map((s, i) => [i ? " vs " : "", seatResult(s)])),
      td(recorded ? el("a", { href: "/games/" + g.name, class: "replay-link" }, "replay") : "")));
  }
  return table([">game", ">match", "status", "seats and results", ""], rows);
}

// ---- a bot ----------------------------------------------------------------

async function botPage(name) {
  const bot = await api("/api/bots/" + encodeURIComponent(name));
  document.title = bot.name + " · cairn arena";
  const forfeits = bot.games.filter((g) => g.forfeit_reason);
  show(el("h1", {}, "Bot " + bot.name + (bot.deleted ? " (deleted)" : "")),
    el("p", { class: "muted" }, "owner " + bot.owner + " · since " + when(bot.created_at)),
    el("h2", {}, "Versions"),
    table([">version", "content hash", ">size", "submitted", "state"], bot.versions.map((v) => el("tr", {},
      td(v.version, "num"), td(v.content_hash.slice(0, 16) + "…"), td(v.size_bytes + " B", "num"), td(when(v.created_at)),
      td(validationState(v), v.validation === "failed" ? "reason" : "")))),
    ...validationFailures(bot.versions),
    el("h2", {}, "Forfeits (" + forfeits.length + ")"),
    forfeits.length === 0 ? el("p", { class: "muted" }, "None.") :
      table([">game", "version", "reason", "detail"], forfeits.map((g) => el("tr", { class: "forfeit" },
        td(el("a", { href: "/games/" + g.game_id }, g.game_id), "num"), td("v" + g.version),
        td(g.forfeit_reason, "reason"), td(g.forfeit_detail || "", "detail")))),
    el("h2", {}, "Games (latest " + bot.games.length + ")"),
    table([">id", "tournament", "game · variant", ">version", ">seat", ">score", ">rank", "recorded"], bot.games.map((g) => el("tr", {},
      td(el("a", { href: "/games/" + g.game_id }, g.game_id), "num"),
      td(el("a", { href: "/tournaments/" + g.tournament_id }, "#" + g.tournament_id)),
      td(g.game + " · " + variantName(g.variant)), td(g.version, "num"), td(g.seat, "num"), td(g.score, "num"), td(g.rank, "num"),
      td(when(g.recorded_at))))));
}

// A version's validation (issue 32): validating, ready or failed validation.
function validationState(v) {
  return v.validation === "failed" ? "failed validation" : v.validation;
}

function validationFailures(versions) {
  return versions.filter((v) => v.validation_failure).map((v) => {
    const f = JSON.parse(v.validation_failure);
    const parts = ["Version " + v.version + " failed validation at " + f.game + (f.variant ? " (" + f.variant + ")" : "") +
      " with " + plural(f.seats, "seat") + ": " + f.reason + ": " + f.detail];
    if (f.game_id) parts.push(" · ", el("a", { href: "/games/" + f.game_id }, "replay"));
    const block = [el("p", { class: "error" }, parts)];
    if (f.stderr_tail) block.push(el("pre", {}, f.stderr_tail));
    return el("div", {}, block);
  });
}

// ---- the replay viewer ------------------------------------------------------

async function gamePage(id) {
  const data = await api("/api/games/" + id.split("/").map(encodeURIComponent).join("/"));
  const header = data.game;
  const replay = data.replay;
  document.title = "game " + header.game_id + " · cairn arena";
  const names = header.seats.map((s) => s.bot_name + "@" + s.version);
  const head = [
    el("h1", {}, "Game " + header.name + " · " + header.game + " · " + variantName(header.variant)),
    el("p", { class: "muted", id: "game-name" }, "game " + header.name + " (tournament/match/game; game id " + header.game_id + ")"),
    el("p", {}, "Tournament ", el("a", { href: "/tournaments/" + header.tournament_id }, "#" + header.tournament_id),
      replay.seed ? " · seed " + replay.seed : ""),
    el("div", { class: "seats", id: "seats" }, header.seats.map((s) => el("span", { class: "seat", "data-seat": s.seat },
      el("span", { class: "seatname" }, "seat " + s.seat + ": "), botLink(s.bot_name, s.version),
      " · score ", el("b", { class: "score" }, String(s.score)), " · rank " + s.rank,
      s.forfeit_reason ? el("span", { class: "error" }, " · forfeit: " + s.forfeit_reason + " (" + (s.forfeit_detail || "") + ")") : ""))),
  ];
  const tails = stderrTails(header);
  if (!replay.steps) {
    show(head, el("p", { class: "error", id: "replay-error" }, replay.error || "this replay cannot be shown"), tails);
    return;
  }
  const view = new ReplayView(replay, names);
  show(head, view.node, tails);
  view.start();
}

// Each seat's last stderr bytes in the game (text, never markup).
function stderrTails(header) {
  const tails = (header.stderr_tails || []).map((tail, seat) => [tail, seat]).filter(([tail]) => tail);
  if (!tails.length) return "";
  return el("div", { id: "stderr" }, el("h2", {}, "stderr"), tails.map(([tail, seat]) => el("details", { class: "stderr", "data-seat": seat },
    el("summary", {}, "seat " + seat + " · " + header.seats[seat].bot_name + "@" + header.seats[seat].version + " (last " + tail.length + " characters)"),
    el("pre", {}, tail))));
}

/** A decision's CPU time (the clock the time control charges), from microseconds. */
function decisionTime(cpuUs) {
  if (typeof cpuUs !== "number") return "decision time not recorded";
  return "took " + (cpuUs / 1000).toFixed(1) + " ms of CPU";
}

class ReplayView {
  constructor(replay, names) {
    this.replay = replay;
    this.names = names;
    this.steps = replay.steps;
    this.at = 0;
    this.perspective = "all";
    const params = new URLSearchParams(location.hash.slice(1));
    const at = Number(params.get("step"));
    if (Number.isInteger(at) && at >= 0 && at < this.steps.length) this.at = at;
    const seat = params.get("seat");
    if (seat !== null && Number(seat) >= 0 && Number(seat) < replay.n_seats) this.perspective = String(Number(seat));
    const button = (label, title, f) => el("button", { type: "button", title, on: { click: () => { f(); this.draw(); } } }, label);
    this.buttons = {
      first: button("|◀ first", "first step (Home)", () => (this.at = 0)),
      prev: button("◀ previous", "previous step (←)", () => (this.at = Math.max(0, this.at - 1))),
      next: button("next ▶", "next step (→)", () => (this.at = Math.min(this.steps.length - 1, this.at + 1))),
      last: button("last ▶|", "last step (End)", () => (this.at = this.steps.length - 1)),
    };
    for (const [name, b] of Object.entries(this.buttons)) b.id = "step-" + name;
    this.info = el("span", { class: "stepinfo", id: "step-info" });
    this.select = el("select", { id: "perspective", on: { change: () => { this.perspective = this.select.value; this.select.blur(); this.draw(); } } },
      el("option", { value: "all" }, "every seat (all hands)"),
      names.map((name, seat) => el("option", { value: String(seat) }, "seat " + seat + " (" + name + ") only")));
    this.select.value = this.perspective;
    const decisions = names.map((name, seat) => el("button", { type: "button", class: "decision", title: "next decision of seat " + seat + " (key " + seat + ")",
      on: { click: () => { this.nextDecision(seat); this.draw(); } } }, "next move of seat " + seat));
    this.action = el("div", { class: "action", id: "action" });
    this.board = el("div", { class: "board", id: "board" });
    this.ending = el("div", { id: "ending" });
    this.node = el("section", { id: "viewer" },
      el("div", { class: "controls" }, this.buttons.first, this.buttons.prev, this.info, this.buttons.next, this.buttons.last, el("label", {}, " view: ", this.select)),
      el("div", { class: "controls" }, decisions, el("span", { class: "muted" }, " keys: ", el("kbd", {}, "←"), " ", el("kbd", {}, "→"), " ", el("kbd", {}, "Home"), " ", el("kbd", {}, "End"), ", a seat number for its next move")),
      this.action, this.board, this.ending);
  }

  start() {
    document.addEventListener("keydown", (event) => {
      if (!this.node.isConnected || event.target.tagName === "SELECT" || event.ctrlKey || event.metaKey || event.altKey) return;
      const before = this.at;
      if (event.key === "ArrowRight") this.at = Math.min(this.steps.length - 1, this.at + 1);
      else if (event.key === "ArrowLeft") this.at = Math.max(0, this.at - 1);
      else if (event.key === "Home") this.at = 0;
      else if (event.key === "End") this.at = this.steps.length - 1;
      else if (/^[0-9]$/.test(event.key)) this.nextDecision(Number(event.key));
      else return;
      event.preventDefault();
      if (before !== this.at) this.draw();
    });
    this.draw();
  }

  nextDecision(seat) {
    for (let i = this.at + 1; i < this.steps.length; i++) {
      if (this.steps[i].to_move === seat) { this.at = i; return; }
    }
  }

  draw() {
    const step = this.steps[this.at];
    const last = this.steps.length - 1;
    this.info.textContent = "step " + this.at + " / " + last;
    this.buttons.first.disabled = this.buttons.prev.disabled = this.at === 0;
    this.buttons.next.disabled = this.buttons.last.disabled = this.at === last;
    history.replaceState(null, "", "#step=" + this.at + (this.perspective === "all" ? "" : "&seat=" + this.perspective));
    const seat = this.perspective === "all" ? null : Number(this.perspective);
    this.action.replaceChildren();
    if (step.action === null) append(this.action, ["The deal."]);
    else {
      const text = seat === null ? step.action : step.action_seen[seat];
      append(this.action, [el("b", {}, "seat " + step.actor + " (" + this.names[step.actor] + ")"), " played ",
        el("code", { id: "action-text" }, text), el("span", { class: "muted", id: "decision-time" }, " · " + decisionTime(step.cpu_us))]);
    }
    if (step.to_move !== null) append(this.action, [el("br"), "to move: seat " + step.to_move + " (" + this.names[step.to_move] + ")"]);
    const draw = window.cairnBoards[this.replay.game];
    this.board.replaceChildren(draw ? draw(step, seat, this.names, el) : el("p", {}, "no board for " + this.replay.game));
    this.ending.replaceChildren();
    if (this.at === last) {
      if (this.replay.error) append(this.ending, [el("p", { class: "error" }, "The replay stops here: " + this.replay.error)]);
      if (this.replay.outcome) append(this.ending, [el("p", { id: "outcome" }, "Final scores " + this.replay.outcome.scores.join(" : ") + " · ranks " + this.replay.outcome.ranks.join(" : "))]);
    }
    for (const node of document.querySelectorAll("#seats .seat")) {
      node.classList.toggle("tomove", Number(node.dataset.seat) === step.to_move);
    }
  }
}

// ---- routing ------------------------------------------------------------------

async function route() {
  const parts = location.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  try {
    if (parts.length === 0) await homePage();
    else if (parts[0] === "tournaments" && parts.length === 2) await tournamentPage(parts[1]);
    else if (parts[0] === "bots" && parts.length === 2) await botPage(parts[1]);
    else if (parts[0] === "games" && (parts.length === 2 || parts.length === 4)) await gamePage(parts.slice(1).join("/"));
    else show(el("p", { class: "error" }, "No such page."));
  } catch (error) {
    show(el("p", { class: "error", id: "page-error" }, String(error.message || error)));
  }
}

route();
