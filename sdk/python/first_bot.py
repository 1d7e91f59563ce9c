"""Always plays the first legal action: matches the Rust and JS first bots move for move."""

from cairn_bot import Bot, run


class FirstBot(Bot):
    name = "python-first"

    def decide(self, request):
        return request["legalActions"][0]


if __name__ == "__main__":
    run(FirstBot())
