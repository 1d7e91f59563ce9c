// Always plays the first legal action: matches the Rust and Python first bots move for move.
"use strict";

const { Bot, run } = require("./cairn_bot.js");

class FirstBot extends Bot {
  decide(request) {
    return request.legalActions[0];
  }
}

run(new FirstBot("js-first"));
