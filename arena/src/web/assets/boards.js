// One board per game, drawn from a step of /api/games/ID: `step.views[s]`
// is seat s's observation (the proto3 JSON bots read). `seat` is null for
// every seat's view together (all hands), or the one seat whose view to
// draw. Text goes in through el() (textContent); the Bullfrogs grid is SVG
// with <text> labels.
"use strict";

window.cairnBoards = (function () {
  const SVG = "http://www.w3.org/2000/svg";

  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
    if (text !== undefined) node.textContent = String(text);
    return node;
  }

  // The view public parts are read from, and a seat's own view if visible.
  function perspective(step, seat) {
    return {
      pub: step.views[seat === null ? 0 : seat],
      own: (s) => (seat === null || seat === s ? step.views[s] : null),
    };
  }

  function fact(el, label, value) {
    return el("span", {}, el("b", {}, label + ": "), String(value));
  }

  // ---- Schotten Totten ----------------------------------------------------

  const TACTICS = ["joker", "spy", "shield", "bluff", "mud", "recruiter", "strategist", "banshee", "traitor"];

  function stCard(el, name) {
    if (TACTICS.includes(name)) return el("span", { class: "card tactic", "data-card": name, title: name }, name);
    return el("span", { class: "card c-" + name[0], "data-card": name, title: name }, name.slice(1));
  }

  function stHand(el, step, seat, s, names) {
    const { pub, own } = perspective(step, seat);
    const mine = own(s);
    let cards;
    if (mine) cards = mine.hand.map((c) => stCard(el, c));
    else {
      const n = pub.opponentHandClan + pub.opponentHandTactic;
      cards = Array.from({ length: n }, (_, i) => el("span", { class: "card back" }, i < pub.opponentHandClan ? "clan" : "tac"));
    }
    const who = el("span", { class: "who" }, el("b", {}, "seat " + s), " " + names[s] + (mine ? " · hand" : " · hand (hidden)"));
    return el("div", { class: "hand", "data-hand": s }, who, el("span", { class: "cards" }, cards));
  }

  function schottenTotten(step, seat, names, el) {
    const { pub } = perspective(step, seat);
    const grid = el("div", { class: "st-grid" });
    const sideRow = (s, top) => {
      grid.appendChild(el("div", { class: "label" }, "seat " + s + " " + names[s]));
      pub.stones.forEach((stone, index) => {
        const cards = (stone.sides[s] || { cards: [] }).cards.map((c) => stCard(el, c));
        grid.appendChild(el("div", { class: "st-side" + (top ? " top" : ""), "data-stone": index, "data-side": s }, top ? cards.reverse() : cards));
      });
    };
    sideRow(1, true);
    grid.appendChild(el("div", { class: "label" }, "stones"));
    pub.stones.forEach((stone, index) => {
      const notes = [];
      if (stone.owner !== null && stone.owner !== undefined) notes.push("won by seat " + stone.owner);
      if (stone.mud) notes.push("mud");
      if (stone.bluff) notes.push("bluff");
      const won = stone.owner === null || stone.owner === undefined ? "" : " won" + stone.owner;
      grid.appendChild(el("div", { class: "st-stone" + won, "data-stone": index, "data-owner": stone.owner ?? "" },
        "stone " + index, notes.length ? el("small", {}, notes.join(", ")) : el("small", {}, "\u00a0")));
    });
    sideRow(0, false);
    const facts = el("div", { class: "facts" },
      // `round` counts from 0 and passes the last one when the match is over.
      fact(el, "round", Math.min(pub.round + 1, Math.max(pub.rounds, 1)) + "/" + Math.max(pub.rounds, 1)),
      fact(el, "phase", pub.phase),
      fact(el, "clan deck", pub.clanDeck));
    if (pub.tactics) facts.append(fact(el, "tactic deck", pub.tacticDeck), fact(el, "tactics played", pub.tacticsPlayed.join(" : ")));
    if (pub.rounds > 1) facts.append(fact(el, "match points", pub.matchPoints.join(" : ")));
    const discard = el("div", { class: "hand" }, el("span", { class: "who" }, "discard"), el("span", { class: "cards" }, pub.discard.map((c) => stCard(el, c))));
    return el("div", { class: "st" }, stHand(el, step, seat, 1, names), grid, stHand(el, step, seat, 0, names), facts, pub.discard.length ? discard : "");
  }

  // ---- Lords of Scotland ------------------------------------------------------

  const CLAN_COLORS = {
    scott: "#2a62b8", makgill: "#c8342b", macdonnell: "#2f8f46", wemyss: "#7b3fa4", fergusson: "#e07b1a",
    forsyth: "#1d8a8a", cockburn: "#8a5a2b", cochrane: "#b8327a", bruce: "#333",
  };

  function losCard(el, name) {
    if (!name) return el("span", { class: "card back" }, "?");
    const match = /^([a-z]+)(\d+)([a-z]?)$/.exec(name) || [name, name, "", ""];
    const card = el("span", { class: "card", "data-card": name, title: name }, match[2] + match[3], el("small", {}, match[1]));
    card.style.background = CLAN_COLORS[match[1]] || "#666";
    return card;
  }

  // An army's strength as far as this view knows it: "army 24" when every
  // card is known (doubled when it holds more than one card, all of one
  // clan, a card marked "any clan" matching any), else "army at least 9, 2
  // hidden" (the known cards' sum).
  function losArmyTotal(known, hidden, anyClan) {
    const parsed = known.map((name) => /^([a-z]+)(\d+)[a-z]?$/.exec(name)).filter((m) => m);
    const sum = parsed.reduce((total, m) => total + Number(m[2]), 0);
    if (hidden > 0) return "army at least " + sum + ", " + hidden + " hidden";
    const clans = new Set(parsed.filter((m) => !anyClan.includes(m[0])).map((m) => m[1]));
    const doubled = parsed.length > 1 && clans.size <= 1;
    return "army " + (doubled ? 2 * sum + " (doubled: one clan)" : sum);
  }

  function losLine(el, label, content) {
    return el("div", { class: "line" }, el("span", {}, label), el("span", { class: "cards" }, content));
  }

  function lordsOfScotland(step, seat, names, el) {
    const { pub, own } = perspective(step, seat);
    const recruits = pub.recruits.map((slot) =>
      slot.state === "face_up" ? losCard(el, slot.card) : slot.state === "face_down" ? el("span", { class: "card back" }, "?") : el("span", { class: "card back", style: { opacity: 0.25 } }, "·"));
    const facts = el("div", { class: "facts" },
      fact(el, "skirmish", pub.skirmish), fact(el, "round", pub.turnRound), fact(el, "phase", pub.phase),
      fact(el, "initiative", "seat " + pub.initiative), fact(el, "draw pile", pub.drawPile));
    if (pub.phase === "power") facts.append(fact(el, "power", pub.powerCard + " as " + pub.powerClan));
    if (pub.phase === "supporters") facts.append(fact(el, "picking", "order " + pub.supporterOrder.join(", ") + ", " + pub.picksLeft + " left"));
    const seats = pub.scores.map((score, s) => {
      const mine = own(s);
      const army = pub.armies[s] || { faceUp: [], faceDown: [] };
      const downKnown = army.faceDown.map((card, i) => card || step.views.map((v, viewer) => (own(viewer) ? ((v.armies[s] || {}).faceDown || [])[i] : "")).find((c) => c) || "");
      const total = losArmyTotal(army.faceUp.concat(downKnown.filter((c) => c)), downKnown.filter((c) => !c).length, pub.anyClan);
      const hand = mine ? mine.hand.map((c) => losCard(el, c))
        : Array.from({ length: pub.handSizes[s] || 0 }, () => el("span", { class: "card back" }, "?"));
      return el("div", { class: "los-seat" + (pub.toMove === s ? " tomove" : ""), "data-seat": s },
        el("span", { class: "score", "data-score": score }, score + " pts"),
        el("h3", {}, "seat " + s + " · " + names[s]),
        el("div", { class: "muted army-total", "data-army-total": s }, total +
          (pub.lastStrengths && pub.lastStrengths.length > s ? " · last skirmish " + pub.lastStrengths[s] : "")),
        losLine(el, "supporters won", ((pub.won[s] || {}).cards || []).map((c) => losCard(el, c))),
        losLine(el, "followers", army.faceUp.map((c) => losCard(el, c))),
        losLine(el, "face down", downKnown.map((c) => losCard(el, c))),
        losLine(el, mine ? "hand" : "hand (hidden)", hand));
    });
    const marks = [["takes two", pub.takesTwo], ["stays", pub.stays], ["any clan", pub.anyClan], ["kept", pub.kept]]
      .filter(([, cards]) => cards.length).map(([label, cards]) => fact(el, label, cards.join(" ")));
    return el("div", { class: "los" }, facts,
      el("div", { class: "los-row" },
        el("div", {}, el("div", { class: "muted" }, "recruits"), el("div", { class: "cards", id: "recruits" }, recruits)),
        el("div", {}, el("div", { class: "muted" }, "supporters to win"), el("div", { class: "cards" }, pub.supporters.map((c) => losCard(el, c))))),
      seats,
      losLine(el, "discard", pub.discard.map((c) => losCard(el, c))),
      marks.length ? el("div", { class: "facts" }, marks) : "");
  }

  // ---- Bullfrogs ------------------------------------------------------------------

  const COLORS = { red: "#c8342b", blue: "#2a62b8", green: "#2f8f46", yellow: "#d4b20f" };
  const COLOR_NAMES = ["red", "blue", "green", "yellow"];
  const PAD = { start: "#e9dfc4", log: "#8a6a45" };
  const CELL = 92;

  function bullfrogsGrid(pub) {
    const cells = pub.table.map((slot) => ({ slot, x: Number(slot.at.split(",")[0]), y: Number(slot.at.split(",")[1]) }));
    const xs = cells.map((c) => c.x), ys = cells.map((c) => c.y);
    const minX = Math.min(...xs), maxX = Math.max(...xs), minY = Math.min(...ys), maxY = Math.max(...ys);
    const width = (maxX - minX + 1) * CELL + 40, height = (maxY - minY + 1) * CELL + 30;
    const root = svg("svg", { class: "bf-grid", width, height, viewBox: "0 0 " + width + " " + height, role: "img", "aria-label": "the pond" });
    for (const { slot, x, y } of cells) {
      const px = 30 + (x - minX) * CELL, py = 10 + (maxY - y) * CELL;
      const g = svg("g", { "data-at": slot.at, "data-kind": slot.kind, "data-owner": slot.owner, transform: "translate(" + px + "," + py + ")" });
      const fill = slot.kind === "log" ? PAD.log : slot.kind === "start" ? PAD.start : COLORS[slot.owner] || "#bbb";
      const marked = pub.played === slot.at || (pub.sink && pub.sink.at === slot.at && pub.phase === "jump");
      g.appendChild(svg("rect", { x: 2, y: 2, width: CELL - 6, height: CELL - 6, rx: slot.kind === "log" ? 6 : 26, fill, "fill-opacity": slot.kind === "log" || slot.kind === "start" ? 1 : 0.35,
        stroke: marked ? "#111" : "#5d5a52", "stroke-width": marked ? 3 : 1 }));
      const label = slot.kind === "log" ? "LOG" : slot.kind === "start" ? "start" : slot.kind.replace("pad", "") + " · " + slot.owner;
      g.appendChild(svg("text", { x: CELL / 2 - 1, y: 18, "text-anchor": "middle", "font-size": 12, fill: slot.kind === "log" ? "#fff" : "#222" }, label));
      let slotIndex = 0;
      slot.frogs.forEach((n, color) => { if (n > 0) piece(g, slotIndex++, COLOR_NAMES[color], n, false); });
      slot.bullfrogs.forEach((n, color) => { if (n > 0) piece(g, slotIndex++, COLOR_NAMES[color], n, true); });
      if (pub.solo && pub.marker === slot.at) g.appendChild(svg("text", { x: CELL - 14, y: 18, "font-size": 13, "text-anchor": "middle" }, "@"));
      root.appendChild(g);
    }
    for (let x = minX; x <= maxX; x++) root.appendChild(svg("text", { x: 30 + (x - minX) * CELL + CELL / 2, y: height - 6, "text-anchor": "middle", "font-size": 10, fill: "#888" }, "x=" + x));
    for (let y = minY; y <= maxY; y++) root.appendChild(svg("text", { x: 2, y: 10 + (maxY - y) * CELL + CELL / 2, "font-size": 10, fill: "#888" }, "y=" + y));
    return root;
  }

  // A frog (small) or bullfrog (large, ringed) of `color`, with its count.
  function piece(g, index, color, count, bull) {
    const cx = 20 + (index % 3) * 24, cy = 40 + Math.floor(index / 3) * 26;
    g.appendChild(svg("circle", { cx, cy, r: bull ? 11 : 8, fill: COLORS[color], stroke: bull ? "#111" : "#fff", "stroke-width": bull ? 2.5 : 1,
      "data-piece": (bull ? "bullfrog-" : "frog-") + color, "data-count": count }));
    g.appendChild(svg("text", { x: cx, y: cy + 4, "text-anchor": "middle", "font-size": 11, "font-weight": 700, fill: color === "yellow" ? "#222" : "#fff" }, count));
  }

  function bullfrogs(step, seat, names, el) {
    const { pub, own } = perspective(step, seat);
    const facts = el("div", { class: "facts" }, fact(el, "phase", pub.phase), fact(el, "to act", pub.active));
    if (pub.actionsLeft > 0) facts.append(fact(el, "actions left", pub.actionsLeft));
    if (pub.solo && step.isaac_roll) facts.append(el("span", { id: "isaac-dice" }, el("b", {}, "Isaac's dice: "), step.isaac_roll + ", " + pub.rollActions + " action(s)"));
    const colors = pub.frogSupply.map((_, color) => {
      const isaac = pub.solo && color === 1;
      const who = isaac ? "Isaac" : "seat " + color + " " + names[color];
      const mine = isaac ? null : own(color);
      const hand = isaac ? "" : mine ? " · hand: " + (mine.hand.map((h) => h.count + "× " + h.kind).join(", ") || "empty") : " · hand: " + pub.handSizes[color] + " hidden";
      const won = pub.won.filter((p) => p.winner === COLOR_NAMES[color]).map((p) => p.count + "× " + p.kind + " " + p.color).join(", ");
      return el("div", { class: "bf-seat", "data-color": COLOR_NAMES[color] },
        el("span", { class: "swatch", style: { background: COLORS[COLOR_NAMES[color]] } }),
        el("b", {}, who), " (" + COLOR_NAMES[color] + ")" + hand + " · deck " + (pub.deckSizes[color] || 0) +
        " · supply " + pub.frogSupply[color] + " frogs, " + pub.bullfrogSupply[color] + " bullfrogs" + (won ? " · won: " + won : ""));
    });
    return el("div", { class: "bf" }, facts,
      el("div", { class: "bf-wrap" }, bullfrogsGrid(pub),
        el("div", {}, colors, el("p", { class: "legend" }, "Small discs are frogs, ringed large discs bullfrogs, with their counts; a dark frame marks the pad played this turn or being scored; @ is Isaac's marker."))));
  }

  return { "schotten-totten": schottenTotten, "lords-of-scotland": lordsOfScotland, bullfrogs };
})();
