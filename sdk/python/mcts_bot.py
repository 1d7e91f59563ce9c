"""A searching Python bot: single-observer ISMCTS over cairn_engine.

Each iteration draws one state consistent with what this seat has seen
(cairn_engine.determinize), walks one tree shared by all draws (UCB over the
actions legal in the draw, counted by availability), adds one node, plays the
rest of the game at random inside the engine (Game.play_randomly) and credits
every node with the score share of the seat that chose it. The most visited
action at the root is played. Works for every game of cairn_engine.GAMES.

Needs the engine's Python package (docs/python.md); stays under the per
decision CPU time the arena sends in hello.
"""

import math
import sys
import time

from cairn_bot import Bot, run

try:
    import cairn_engine
except ImportError:
    sys.stderr.write(
        "mcts_bot: the Python package cairn_engine is not installed on this host "
        "(see docs/python.md: `pip install ./python` on the runner host)\n")
    raise

EXPLORATION = 0.7
# Of the per-decision CPU time: room for the answer and the clock's grain.
BUDGET_SHARE = 0.8


class Node:
    __slots__ = ("children", "visits", "reward", "available")

    def __init__(self):
        self.children = {}
        self.visits = 0
        self.reward = 0.0
        self.available = 0


def shares(outcome):
    """Each seat's reward: its share of the scores above the minimum, ties of
    rank split evenly (0.5 each when all scores are equal)."""
    scores = outcome["scores"]
    low = min(scores)
    total = sum(score - low for score in scores)
    if total == 0:
        return [1.0 / len(scores)] * len(scores)
    return [(score - low) / total for score in scores]


class MctsBot(Bot):
    name = "python-mcts"

    def __init__(self):
        self.seed = 1
        self.budget = 0.8

    def hello(self, hello):
        per_decision = hello.get("timeControl", {}).get("perDecisionMs", 1000)
        self.budget = BUDGET_SHARE * per_decision / 1000.0

    def decide(self, request):
        legal = request["legalActions"]
        if len(legal) == 1:
            return legal[0]
        observation = request["observation"]
        deadline = time.process_time() + self.budget
        root = Node()
        while time.process_time() < deadline:
            for _ in range(16):
                self.seed += 1
                self.iterate(root, cairn_engine.determinize(observation, self.seed))
        best = max(legal, key=lambda action: root.children[action].visits if action in root.children else -1)
        return best

    def iterate(self, root, state):
        path = []
        node = root
        while not state.is_over():
            seat = state.current_seat()
            actions = state.legal_actions()
            untried = [action for action in actions if action not in node.children]
            for action in actions:
                child = node.children.get(action)
                if child is not None:
                    child.available += 1
            if untried:
                action = untried[self.seed % len(untried)]
                child = Node()
                child.available = 1
                node.children[action] = child
                state.apply(action)
                path.append((child, seat))
                break
            action = self.select(node, actions)
            node = node.children[action]
            state.apply(action)
            path.append((node, seat))
        if not state.is_over():
            state.play_randomly(self.seed)
        reward = shares(state.outcome())
        root.visits += 1
        for node, seat in path:
            node.visits += 1
            node.reward += reward[seat]

    @staticmethod
    def select(node, actions):
        best_action, best_value = actions[0], -1.0
        for action in actions:
            child = node.children[action]
            value = child.reward / child.visits + EXPLORATION * math.sqrt(math.log(child.available) / child.visits)
            if value > best_value:
                best_action, best_value = action, value
        return best_action


if __name__ == "__main__":
    run(MctsBot())
