// Plays a uniformly random legal action, in any game.
"use strict";

const { Bot, run } = require("./cairn_bot.js");

class RandomBot extends Bot {
  decide(request) {
    const actions = request.legalActions;
    return actions[Math.floor(Math.random() * actions.length)];
  }
}

run(new RandomBot("js-random"));
