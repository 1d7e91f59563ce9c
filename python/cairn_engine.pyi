"""cairn's engine for Python bots: every game's rules, the protocol's action
texts and observation JSON, and determinization (see docs/python.md)."""

from typing import Any, Mapping, Optional, Union

__version__: str

GAMES: list[str]
"""The id of every game, in the engine's order."""

class Game:
    """A state of one game: create it, play it, observe it, copy it."""

    def __init__(
        self,
        game: str,
        seats: int,
        seed: int = 0,
        options: Optional[Mapping[str, Union[str, bool, int]]] = None,
    ) -> None:
        """Sets up `game` (an id of GAMES) for `seats` seats, dealt from
        `seed`. Raises ValueError for an unknown game, option or seat count."""
    @property
    def game_id(self) -> str: ...
    @property
    def n_seats(self) -> int: ...
    def legal_actions(self) -> list[str]:
        """The current seat's actions, in the protocol's texts and order;
        empty once the game is over."""
    def apply(self, action: str) -> None:
        """Plays `action` for the current seat. Raises ValueError, leaving the
        state unchanged, when it is not legal."""
    def current_seat(self) -> Optional[int]:
        """The seat to act, or None once the game is over."""
    def is_over(self) -> bool: ...
    def outcome(self) -> Optional[dict[str, list[int]]]:
        """{"scores": [...], "ranks": [...]} (rank 1 is best) once over."""
    def observation(self, seat: int) -> str:
        """What `seat` may know: the JSON text of the protocol's
        request.observation. Raises ValueError for a seat out of range."""
    def clone(self) -> "Game":
        """An independent copy."""
    def __copy__(self) -> "Game": ...
    def __deepcopy__(self, memo: Any) -> "Game": ...
    def state_hash(self) -> int:
        """A 64-bit hash of the whole state, stable across processes."""
    def play_randomly(self, seed: int) -> None:
        """Plays uniformly random legal actions from `seed` to the end of
        the game, inside the engine (a fast playout)."""

def determinize(observation: Union[str, Mapping[str, Any]], seed: int = 0) -> Game:
    """A whole state consistent with one seat's observation (the JSON text or
    the parsed dict of request["observation"]); what the seat cannot see is
    drawn at random from `seed`. Raises ValueError for a malformed one."""
