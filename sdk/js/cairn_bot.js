// cairn bot helper for JavaScript: one file, Node only, no packages.
//
// Copy this file next to your bot, extend Bot, and call run(). The arena
// speaks newline-delimited JSON on stdin / stdout (see sdk/PROTOCOL.md):
//
//   hello    -> you answer ready   (start of each game; your seat may change)
//   request  -> you answer action  (your turn: pick one of legalActions)
//   gameOver -> no answer          (end of a game)
//   quit     -> exit               (end of the match)
//
// Messages are objects in the proto3 JSON mapping (camelCase keys, every
// field present). Print debugging output to stderr, never to stdout.
"use strict";

const readline = require("readline");

class Bot {
  constructor(name) {
    this.name = name || "js-bot";
  }
  // A game starts: hello has game, options, seat, nSeats, timeControl.
  hello(hello) {}
  // Return one of request.legalActions (a string).
  decide(request) {
    throw new Error("decide() is not implemented");
  }
  // A game ended: gameOver has scores, ranks, endedBy, forfeits.
  gameOver(gameOver) {}
}

function reply(bot, message) {
  if (message.hello) {
    bot.hello(message.hello);
    return { ready: { name: bot.name } };
  }
  if (message.request) {
    const request = message.request;
    return { action: { decisionId: request.decisionId, action: bot.decide(request) } };
  }
  if (message.gameOver) {
    bot.gameOver(message.gameOver);
  }
  return null; // no answer (a message kind from a newer arena is skipped too)
}

// Answers the arena until it says quit or closes stdin.
function run(bot) {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on("line", (line) => {
    if (!line.trim()) return;
    const message = JSON.parse(line);
    if (message.quit) {
      lines.close();
      process.exit(0);
    }
    const answer = reply(bot, message);
    // Writes to a pipe are synchronous on Linux: nothing is lost on exit.
    if (answer) process.stdout.write(JSON.stringify(answer) + "\n");
  });
}

module.exports = { Bot, run };
