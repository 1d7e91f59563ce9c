//! The table: cards on a square grid around the fixed log, as a compact
//! list of slots (at most 45 cards are ever in play, so every coordinate
//! stays within +-45 of the log), with a small hashed index from a cell to
//! its slot. Adjacency,
//! rows and columns, connectivity to the log, and where a disconnected card
//! may slide, including the no-straight-line rule.

use std::fmt;

use super::cards::{pad_kind, STARTING_PADS};
use crate::bits::bits;
use crate::text::write_number;

/// A grid cell; the log is at the origin, `y` grows upwards.
#[derive(Debug, Clone, Copy, Default, Eq, PartialOrd, Ord)]
pub struct Pos {
    pub x: i8,
    pub y: i8,
}

impl PartialEq for Pos {
    /// Both coordinates as one word: finding a cell's card compares one
    /// word a card rather than two bytes and a branch.
    fn eq(&self, other: &Pos) -> bool {
        let word = |pos: &Pos| u16::from_ne_bytes([pos.x as u8, pos.y as u8]);
        word(self) == word(other)
    }
}

impl std::hash::Hash for Pos {
    /// As derived: `x`, then `y` (equal cells hash alike, as `eq` needs).
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.x.hash(state);
        self.y.hash(state);
    }
}

/// Coordinates a parsed position may have: a table of at most 45 cards
/// around the log never reaches beyond +-45, its empty neighbours +-46.
pub const MAX_COORDINATE: i8 = 46;

impl Pos {
    pub const LOG: Pos = Pos { x: 0, y: 0 };

    pub const fn new(x: i8, y: i8) -> Pos {
        Pos { x, y }
    }

    /// The four orthogonal neighbours: up, right, down, left.
    pub fn neighbours(self) -> [Pos; 4] {
        [
            Pos::new(self.x, self.y + 1),
            Pos::new(self.x + 1, self.y),
            Pos::new(self.x, self.y - 1),
            Pos::new(self.x - 1, self.y),
        ]
    }

    pub fn is_adjacent(self, other: Pos) -> bool {
        (self.x - other.x).abs() + (self.y - other.y).abs() == 1
    }

    /// Same row or same column (through gaps too).
    pub fn in_line_with(self, other: Pos) -> bool {
        self.x == other.x || self.y == other.y
    }

    /// A word that orders like `Pos` (by `x`, then `y`), for sorting
    /// without comparing field by field.
    pub fn order_key(self) -> u16 {
        u16::from_be_bytes([(self.x as u8) ^ 0x80, (self.y as u8) ^ 0x80])
    }
}

impl fmt::Display for Pos {
    // Piece by piece rather than with `write!` (see `crate::text`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_number(f, i32::from(self.x))?;
        f.write_str(",")?;
        write_number(f, i32::from(self.y))
    }
}

impl std::str::FromStr for Pos {
    type Err = ();

    fn from_str(text: &str) -> Result<Pos, ()> {
        let (x, y) = text.split_once(',').ok_or(())?;
        let x: i8 = x.parse().map_err(|_| ())?;
        let y: i8 = y.parse().map_err(|_| ())?;
        if x.abs() > MAX_COORDINATE || y.abs() > MAX_COORDINATE {
            return Err(());
        }
        Ok(Pos::new(x, y))
    }
}

/// The owner value of neutral cards (the log and the starting pads).
pub const NEUTRAL: u8 = 4;

/// The kind value of the log (not a lily pad).
pub const LOG_KIND: u8 = u8::MAX;

/// One card on the table with the pieces on it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Slot {
    pub pos: Pos,
    /// Index into `PAD_KINDS`, or [`LOG_KIND`].
    pub kind: u8,
    /// The card's color, or [`NEUTRAL`].
    pub owner: u8,
    /// Frogs and bullfrogs on it, by color.
    pub frogs: [u8; 4],
    pub bullfrogs: [u8; 4],
    /// Pieces the active player recruited onto it this turn.
    pub recruited: u8,
}

impl Slot {
    pub fn pad(pos: Pos, kind: u8, owner: u8) -> Slot {
        Slot {
            pos,
            kind,
            owner,
            ..Slot::default()
        }
    }

    #[inline]
    pub fn is_log(&self) -> bool {
        self.kind == LOG_KIND
    }

    /// Every field in two words, for hashing.
    fn packed(&self) -> (u64, u64) {
        let head = u64::from_le_bytes([
            self.pos.x as u8,
            self.pos.y as u8,
            self.kind,
            self.owner,
            self.recruited,
            0,
            0,
            0,
        ]);
        let mut pieces = [0u8; 8];
        pieces[..4].copy_from_slice(&self.frogs);
        pieces[4..].copy_from_slice(&self.bullfrogs);
        (head, u64::from_le_bytes(pieces))
    }

    #[inline]
    pub fn pieces(&self) -> u8 {
        self.frogs.iter().sum::<u8>() + self.bullfrogs.iter().sum::<u8>()
    }

    /// Empty spaces; the log has no limit.
    #[inline]
    pub fn empty_spaces(&self) -> u8 {
        if self.is_log() {
            u8::MAX
        } else {
            pad_kind(self.kind).spaces.saturating_sub(self.pieces())
        }
    }

    pub fn has_space(&self) -> bool {
        self.empty_spaces() > 0
    }

    /// A lily pad with every space taken (the log is never full).
    pub fn is_full(&self) -> bool {
        !self.is_log() && self.empty_spaces() == 0
    }
}

/// Room for the log, the starting pads and every deck card of four colors.
pub const MAX_SLOTS: usize = 1 + STARTING_PADS + 40;

/// A set of slot indices as a bitmask (`MAX_SLOTS` < 64).
pub type SlotMask = u64;

/// Rows of the occupancy bitboard; cell `(x, y)` is bit `x + OFFSET` of
/// row `y + OFFSET`. Coordinates stay within +-45, so neighbours of any
/// cell are inside the board.
const BOARD_ROWS: usize = 96;
const OFFSET: i32 = 48;

/// A set of cells as one `u128` per row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellSet {
    rows: [u128; BOARD_ROWS],
}

impl CellSet {
    pub const EMPTY: CellSet = CellSet {
        rows: [0; BOARD_ROWS],
    };

    fn row_bit(pos: Pos) -> (usize, u128) {
        (
            (pos.y as i32 + OFFSET) as usize,
            1u128 << (pos.x as i32 + OFFSET),
        )
    }

    /// Whether `pos` is in the set; cells off the board never are.
    pub fn contains(&self, pos: Pos) -> bool {
        let on_board = |c: i8| (c as i32 + OFFSET) >= 0 && (c as i32 + OFFSET) < BOARD_ROWS as i32;
        if !on_board(pos.x) || !on_board(pos.y) {
            return false;
        }
        let (row, bit) = CellSet::row_bit(pos);
        self.rows[row] & bit != 0
    }

    /// [`CellSet::contains`] for cells known to be on the board: those of
    /// the table and their neighbours.
    fn has(&self, pos: Pos) -> bool {
        let (row, bit) = CellSet::row_bit(pos);
        self.rows[row] & bit != 0
    }

    pub fn insert(&mut self, pos: Pos) {
        let (row, bit) = CellSet::row_bit(pos);
        self.rows[row] |= bit;
    }

    pub fn remove(&mut self, pos: Pos) {
        let (row, bit) = CellSet::row_bit(pos);
        self.rows[row] &= !bit;
    }

    /// The cells of row `y` orthogonally next to a cell of the set.
    fn neighbours_of_row(&self, y: usize) -> u128 {
        self.rows[y] << 1 | self.rows[y] >> 1 | self.rows[y - 1] | self.rows[y + 1]
    }

    /// Grows `self` through the `passable` cells of `rows` (by row) until
    /// it stops.
    fn flood_within(&mut self, passable: impl Fn(usize) -> u128, rows: std::ops::Range<usize>) {
        loop {
            let mut changed = false;
            for y in rows.clone() {
                let grown = (self.rows[y] | self.neighbours_of_row(y)) & passable(y);
                if grown != self.rows[y] {
                    self.rows[y] = grown;
                    changed = true;
                }
            }
            if !changed {
                return;
            }
        }
    }
}

/// Hands `visit` the cells of board row `y` whose bits are set in `word`,
/// by column; a word at a time, since a 64-bit bit walk costs less than a
/// 128-bit one.
#[inline]
fn for_each_row_cell(word: u128, y: usize, mut visit: impl FnMut(Pos)) {
    let at_y = (y as i32 - OFFSET) as i8;
    for (half, first_x) in [(word as u64, -OFFSET), ((word >> 64) as u64, 64 - OFFSET)] {
        for x in bits(half) {
            visit(Pos::new((x as i32 + first_x) as i8, at_y));
        }
    }
}

/// Buckets of the cell index: a power of two, more than twice `MAX_SLOTS`.
const INDEX_BUCKETS: usize = 128;

/// The index bucket where a cell's entry starts: `x + 47 y` modulo 128, a
/// lattice under which two cells less than 16 steps apart (rows plus
/// columns) never share a bucket, so a compact table rarely probes twice.
#[inline]
fn home_bucket(pos: Pos) -> usize {
    (pos.x as u8).wrapping_add((pos.y as u8).wrapping_mul(47)) as usize % INDEX_BUCKETS
}

/// The bucket after `bucket`, wrapping around.
#[inline]
fn next_bucket(bucket: usize) -> usize {
    (bucket + 1) % INDEX_BUCKETS
}

/// From a cell to the slot holding its card: open addressing with linear
/// probing over [`INDEX_BUCKETS`] one-byte buckets, each the slot index plus
/// one or 0 when empty (the cells are the slots' own, so none is stored
/// twice). 128 bytes, where a byte per board cell would add 9 KB to every
/// copy of a state. Kept by [`Table::add`], [`Table::move_slot`] and
/// [`Table::remove`]; derived from the slots.
#[derive(Debug, Clone)]
struct CellIndex([u8; INDEX_BUCKETS]);

/// The cards on the table. Slot 0 is always the log.
#[derive(Debug, Clone)]
pub struct Table {
    slots: [Slot; MAX_SLOTS],
    len: u8,
    /// Each card's cell to its slot (derived from `slots`).
    index: CellIndex,
    /// The cells holding a card (derived from `slots`).
    occupied: CellSet,
    /// Whether a card left the table, moved, or arrived away from every
    /// card since the group was last found connected (a cache: a table
    /// whose cards only arrive next to others stays connected, and most
    /// turns need no flood fill to know it).
    maybe_disconnected: bool,
    /// The lowest and highest row holding a card (derived from `slots`:
    /// widened as cards arrive, found again when one leaves or moves).
    low_y: i8,
    high_y: i8,
}

impl PartialEq for Table {
    /// The slots alone: the occupancy and the connectivity cache follow.
    fn eq(&self, other: &Table) -> bool {
        self.slots() == other.slots()
    }
}

impl Eq for Table {}

impl std::hash::Hash for Table {
    /// The occupancy is derived from the slots: hash the slots alone, each
    /// packed into two words (state hashes run at every conformance step).
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_usize(self.len());
        for slot in self.slots() {
            let (head, pieces) = slot.packed();
            state.write_u64(head);
            state.write_u64(pieces);
        }
    }
}

impl Table {
    /// A table holding only the log.
    pub fn with_log() -> Table {
        let mut slots = [Slot::default(); MAX_SLOTS];
        slots[0] = Slot {
            pos: Pos::LOG,
            kind: LOG_KIND,
            owner: NEUTRAL,
            ..Slot::default()
        };
        let mut occupied = CellSet::EMPTY;
        occupied.insert(Pos::LOG);
        let mut index = CellIndex([0; INDEX_BUCKETS]);
        index.0[home_bucket(Pos::LOG)] = 1;
        Table {
            slots,
            len: 1,
            index,
            occupied,
            maybe_disconnected: false,
            low_y: 0,
            high_y: 0,
        }
    }

    #[inline]
    pub fn slots(&self) -> &[Slot] {
        &self.slots[..self.len as usize]
    }

    pub fn slot(&self, index: usize) -> &Slot {
        &self.slots[index]
    }

    /// A slot to change its pieces (never its cell: move cards with
    /// [`Table::move_slot`], which keeps the cell index).
    pub fn slot_mut(&mut self, index: usize) -> &mut Slot {
        &mut self.slots[index]
    }

    pub fn move_slot(&mut self, index: usize, to: Pos) {
        self.maybe_disconnected = true;
        let from = self.slots[index].pos;
        self.unindex(from);
        self.occupied.remove(from);
        self.occupied.insert(to);
        self.slots[index].pos = to;
        self.index_at(to, index);
        self.low_y = self.low_y.min(to.y);
        self.high_y = self.high_y.max(to.y);
        self.find_row_bounds_after_leaving(from.y);
    }

    pub fn occupied(&self) -> &CellSet {
        &self.occupied
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Never true: the log is always on the table.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The slot of the card at `pos`, by the cell index.
    #[inline]
    pub fn find(&self, pos: Pos) -> Option<usize> {
        let found = self.bucket_of(pos).map(|bucket| self.index.0[bucket] as usize - 1);
        debug_assert_eq!(found, self.slots().iter().position(|s| s.pos == pos));
        found
    }

    /// The index bucket holding the entry of `pos`, if a card is there.
    #[inline]
    fn bucket_of(&self, pos: Pos) -> Option<usize> {
        let mut bucket = home_bucket(pos);
        loop {
            let entry = self.index.0[bucket];
            if entry == 0 {
                return None;
            }
            if self.slots[entry as usize - 1].pos == pos {
                return Some(bucket);
            }
            bucket = next_bucket(bucket);
        }
    }

    /// Enters the card of slot `index`, now at the unindexed cell `pos`.
    fn index_at(&mut self, pos: Pos, index: usize) {
        let mut bucket = home_bucket(pos);
        while self.index.0[bucket] != 0 {
            bucket = next_bucket(bucket);
        }
        self.index.0[bucket] = index as u8 + 1;
    }

    /// Takes the entry of `pos` out of the index (the slots still hold every
    /// indexed cell), shifting back the entries probed past it so that
    /// every probe still meets its entry before an empty bucket.
    fn unindex(&mut self, pos: Pos) {
        let Some(mut hole) = self.bucket_of(pos) else {
            debug_assert!(false, "{pos} is not indexed");
            return;
        };
        let mut next = next_bucket(hole);
        while self.index.0[next] != 0 {
            let entry = self.index.0[next];
            let home = home_bucket(self.slots[entry as usize - 1].pos);
            let distance = |from: usize, to: usize| (to + INDEX_BUCKETS - from) % INDEX_BUCKETS;
            // The entry may fill the hole if the hole lies on its probe path.
            if distance(home, next) >= distance(hole, next) {
                self.index.0[hole] = entry;
                hole = next;
            }
            next = next_bucket(next);
        }
        self.index.0[hole] = 0;
    }

    pub fn at(&self, pos: Pos) -> Option<&Slot> {
        self.find(pos).map(|index| &self.slots[index])
    }

    pub fn is_empty_cell(&self, pos: Pos) -> bool {
        !self.occupied.contains(pos)
    }

    pub fn add(&mut self, slot: Slot) {
        self.maybe_disconnected |= !self.touches_any_card(slot.pos);
        self.occupied.insert(slot.pos);
        self.slots[self.len as usize] = slot;
        self.index_at(slot.pos, self.len as usize);
        self.len += 1;
        self.low_y = self.low_y.min(slot.pos.y);
        self.high_y = self.high_y.max(slot.pos.y);
    }

    /// The board rows spanned by the cards, plus a margin of `margin`.
    pub fn row_span(&self, margin: i32) -> std::ops::Range<usize> {
        debug_assert_eq!((self.low_y, self.high_y), self.row_bounds());
        let low = self.low_y as i32 + OFFSET - margin;
        let high = self.high_y as i32 + OFFSET + margin;
        low.max(1) as usize..(high + 1).min(BOARD_ROWS as i32 - 1) as usize
    }

    /// The lowest and highest row holding a card, from the slots.
    fn row_bounds(&self) -> (i8, i8) {
        self.slots()
            .iter()
            .fold((i8::MAX, i8::MIN), |(low, high), s| {
                (low.min(s.pos.y), high.max(s.pos.y))
            })
    }

    /// Finds the row bounds again after a card left row `y`: only a
    /// bounding row can lose its last card.
    fn find_row_bounds_after_leaving(&mut self, y: i8) {
        if y == self.low_y || y == self.high_y {
            (self.low_y, self.high_y) = self.row_bounds();
        }
    }

    /// The cells next to `cells` that hold no card, row by row.
    pub fn empty_neighbours(&self, cells: &CellSet) -> CellSet {
        let mut around = CellSet::EMPTY;
        for y in self.row_span(1) {
            around.rows[y] = cells.neighbours_of_row(y) & !self.occupied.rows[y];
        }
        around
    }

    /// Hands `visit` the cells of `set` within the table's rows (plus a
    /// margin of one), row by row.
    pub fn for_each_cell_of(&self, set: &CellSet, mut visit: impl FnMut(Pos)) {
        for y in self.row_span(1) {
            for_each_row_cell(set.rows[y], y, &mut visit);
        }
    }

    /// The cells in both `a` and `b` within the table's rows (plus a margin
    /// of one), row by row, appended to `out`.
    pub fn cells_of_both(&self, a: &CellSet, b: &CellSet, out: &mut Vec<Pos>) {
        for y in self.row_span(1) {
            for_each_row_cell(a.rows[y] & b.rows[y], y, |at| out.push(at));
        }
    }

    /// The cells of the group of cards connected to the log (a depth-first
    /// search over at most `MAX_SLOTS` cells).
    pub fn connected_cells(&self) -> CellSet {
        let mut seen = CellSet::EMPTY;
        seen.insert(Pos::LOG);
        let mut stack = [Pos::LOG; MAX_SLOTS];
        let mut n_stacked = 1;
        while n_stacked > 0 {
            n_stacked -= 1;
            for next in stack[n_stacked].neighbours() {
                if self.occupied.has(next) && !seen.has(next) {
                    seen.insert(next);
                    stack[n_stacked] = next;
                    n_stacked += 1;
                }
            }
        }
        seen
    }

    /// The empty cells reachable from the empty cell `start` without
    /// crossing a card. Only for enclosed pockets: open water is unbounded.
    pub fn pocket_from(&self, start: Pos) -> CellSet {
        let mut seen = CellSet::EMPTY;
        seen.insert(start);
        let mut stack = vec![start];
        while let Some(cell) = stack.pop() {
            for next in cell.neighbours() {
                if !self.occupied.has(next) && !seen.has(next) {
                    seen.insert(next);
                    stack.push(next);
                }
            }
        }
        seen
    }

    /// The table's span plus a one-cell margin (all water beyond it is
    /// connected): its rows, its columns as a row mask, and the mask of its
    /// first and last column.
    fn water_span(&self) -> (std::ops::Range<usize>, u128, u128) {
        let xs = self.slots().iter().map(|s| s.pos.x as i32 + OFFSET);
        let (low, high) = (
            xs.clone().min().unwrap_or(OFFSET) - 1,
            xs.max().unwrap_or(OFFSET) + 1,
        );
        let columns: u128 = (u128::MAX >> (127 - high)) & (u128::MAX << low);
        (self.row_span(1), columns, 1u128 << low | 1u128 << high)
    }

    /// The open water around the table: empty cells connected to the
    /// water beyond the table's span (found without a set of all water).
    pub fn outer_water(&self) -> CellSet {
        let mut out = CellSet::EMPTY;
        let (rows, columns, edges) = self.water_span();
        let water = |y: usize| !self.occupied.rows[y] & columns;
        let (first, last) = (rows.start, rows.end - 1);
        for y in rows.clone() {
            out.rows[y] = water(y)
                & if y == first || y == last {
                    u128::MAX
                } else {
                    edges
                };
        }
        out.flood_within(water, rows);
        out
    }

    /// Takes a lily pad off the table (never the log at index 0).
    pub fn remove(&mut self, index: usize) -> Slot {
        debug_assert!(index > 0 && index < self.len());
        let removed = self.slots[index];
        self.unindex(removed.pos);
        self.occupied.remove(removed.pos);
        self.maybe_disconnected |= !self.neighbours_stay_joined(removed.pos);
        let last = self.len() - 1;
        if last != index {
            // The last card fills the gap: its entry now names `index`.
            let bucket = self.bucket_of(self.slots[last].pos).expect("every card is indexed");
            self.index.0[bucket] = index as u8 + 1;
        }
        self.slots[index] = self.slots[last];
        self.slots[last] = Slot::default();
        self.len -= 1;
        self.find_row_bounds_after_leaving(removed.pos.y);
        removed
    }

    /// Whether the cards next to the now empty cell `pos` still reach one
    /// another through the eight cells around it (each ring cell touches
    /// the next), so that no card was cut off by emptying it: at most one
    /// unbroken run of cards around the ring holds a neighbour.
    fn neighbours_stay_joined(&self, pos: Pos) -> bool {
        let (x, y) = (pos.x, pos.y);
        // North, north-east, east, ... north-west: even entries are the
        // orthogonal neighbours.
        let ring = [
            Pos::new(x, y + 1),
            Pos::new(x + 1, y + 1),
            Pos::new(x + 1, y),
            Pos::new(x + 1, y - 1),
            Pos::new(x, y - 1),
            Pos::new(x - 1, y - 1),
            Pos::new(x - 1, y),
            Pos::new(x - 1, y + 1),
        ]
        .map(|cell| self.occupied.contains(cell));
        let Some(gap) = ring.iter().position(|&card| !card) else {
            return true;
        };
        let mut runs_with_neighbour = 0;
        let mut in_run_with_neighbour = false;
        for step in 1..=8 {
            let at = (gap + step) % 8;
            if !ring[at] {
                in_run_with_neighbour = false;
            } else if at % 2 == 0 && !in_run_with_neighbour {
                in_run_with_neighbour = true;
                runs_with_neighbour += 1;
            }
        }
        runs_with_neighbour <= 1
    }

    /// Whether some card sits next to `pos`.
    pub fn touches_any_card(&self, pos: Pos) -> bool {
        pos.neighbours().iter().any(|&n| self.occupied.contains(n))
    }

    /// Empty cells next to some card, row by row: where a card may be played.
    pub fn open_cells(&self, out: &mut Vec<Pos>) {
        out.clear();
        self.for_each_open_cell(|at| out.push(at));
    }

    /// [`Table::open_cells`], handed one by one to `visit`.
    pub fn for_each_open_cell(&self, mut visit: impl FnMut(Pos)) {
        let rows = &self.occupied.rows;
        for y in self.row_span(1) {
            let open = (rows[y] << 1 | rows[y] >> 1 | rows[y - 1] | rows[y + 1]) & !rows[y];
            for_each_row_cell(open, y, &mut visit);
        }
    }

    /// Every slot index.
    pub fn all_mask(&self) -> SlotMask {
        (1u64 << self.len) - 1
    }

    /// Whether some card may be cut off from the log: false only when no
    /// card has left, moved or arrived alone since [`Table::mark_connected`].
    pub fn may_be_disconnected(&self) -> bool {
        self.maybe_disconnected
    }

    /// Records that every card was found connected to the log.
    pub fn mark_connected(&mut self) {
        debug_assert!(self.is_connected());
        self.maybe_disconnected = false;
    }

    /// Whether every card is connected to the log.
    pub fn is_connected(&self) -> bool {
        self.connected_mask() == self.all_mask()
    }

    /// The slots orthogonally connected to the log.
    pub fn connected_mask(&self) -> SlotMask {
        self.mask_of(&self.connected_cells())
    }

    /// The slots whose cells are in `cells` (a card's cell is always on the
    /// board: no bounds test).
    pub fn mask_of(&self, cells: &CellSet) -> SlotMask {
        (self.slots().iter().enumerate())
            .fold(0, |mask, (i, s)| mask | SlotMask::from(cells.has(s.pos)) << i)
    }

    /// If the slots in `mask` (at least two) lie in one row or column,
    /// that line.
    pub fn line_of(&self, mask: SlotMask) -> Option<Line> {
        let mut cells = mask_indices(mask).map(|i| self.slots[i].pos);
        let first = cells.next()?;
        let (mut same_x, mut same_y, mut more) = (true, true, false);
        for cell in cells {
            same_x &= cell.x == first.x;
            same_y &= cell.y == first.y;
            more = true;
        }
        match (more, same_x, same_y) {
            (true, true, _) => Some(Line::Column(first.x)),
            (true, _, true) => Some(Line::Row(first.y)),
            _ => None,
        }
    }

    /// Whether the slots in `mask` all sit in one row or one column.
    pub fn is_straight_line(&self, mask: SlotMask) -> bool {
        let mut cells = mask_indices(mask).map(|i| self.slots[i].pos);
        let Some(first) = cells.next() else {
            return true;
        };
        let (mut same_x, mut same_y) = (true, true);
        for cell in cells {
            same_x &= cell.x == first.x;
            same_y &= cell.y == first.y;
        }
        same_x || same_y
    }
}

/// A row or a column of the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    Row(i8),
    Column(i8),
}

impl Line {
    pub fn contains(self, pos: Pos) -> bool {
        match self {
            Line::Row(y) => pos.y == y,
            Line::Column(x) => pos.x == x,
        }
    }
}

/// The indices set in `mask`, ascending.
pub fn mask_indices(mask: SlotMask) -> impl Iterator<Item = usize> {
    bits(mask).map(|index| index as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connected table grown at random from the log.
    fn random_connected_table(rng: &mut crate::Rng, n_cards: usize) -> Table {
        let mut table = Table::with_log();
        while table.len() <= n_cards {
            let mut cells = Vec::new();
            table.open_cells(&mut cells);
            table.add(Slot::pad(cells[rng.below(cells.len())], 1, NEUTRAL));
        }
        table
    }

    #[test]
    fn taking_a_card_off_leaves_the_cache_true_to_the_flood_fill() {
        let mut rng = crate::Rng::seeded(35);
        let (mut kept_connected, mut cut) = (0, 0);
        for _ in 0..3_000 {
            let n_cards = 2 + rng.below(20);
            let mut table = random_connected_table(&mut rng, n_cards);
            table.mark_connected();
            let index = 1 + rng.below(table.len() - 1);
            table.remove(index);
            if !table.may_be_disconnected() {
                assert!(table.is_connected(), "{:?}", table.slots());
                kept_connected += 1;
            } else if !table.is_connected() {
                cut += 1;
            }
        }
        assert!(
            kept_connected > 1_000 && cut > 100,
            "{kept_connected} {cut}"
        );
    }

    #[test]
    fn taking_the_only_link_off_marks_the_table_as_maybe_cut() {
        let mut table = Table::with_log();
        for x in 1..=3 {
            table.add(Slot::pad(Pos::new(x, 0), 1, NEUTRAL));
        }
        table.mark_connected();
        table.remove(table.find(Pos::new(2, 0)).expect("a card there"));
        assert!(table.may_be_disconnected());
        assert!(!table.is_connected());
    }

    #[test]
    fn the_cell_index_finds_every_card_as_a_scan_does_through_adds_moves_and_removes() {
        let mut rng = crate::Rng::seeded(3_035);
        let range = -MAX_COORDINATE..=MAX_COORDINATE;
        let random_cell = |rng: &mut crate::Rng| {
            let side = 2 * MAX_COORDINATE as usize + 1;
            Pos::new(
                (rng.below(side) as i32 - MAX_COORDINATE as i32) as i8,
                (rng.below(side) as i32 - MAX_COORDINATE as i32) as i8,
            )
        };
        let mut shared_homes = 0;
        for _ in 0..60 {
            let mut table = Table::with_log();
            for _ in 0..120 {
                let cell = random_cell(&mut rng);
                let full = table.len() == MAX_SLOTS;
                match rng.below(3) {
                    0 | 1 if !full && table.is_empty_cell(cell) => {
                        table.add(Slot::pad(cell, 1, NEUTRAL));
                    }
                    0 if table.len() > 1 && table.is_empty_cell(cell) => {
                        table.move_slot(1 + rng.below(table.len() - 1), cell);
                    }
                    _ if table.len() > 1 => {
                        table.remove(1 + rng.below(table.len() - 1));
                    }
                    _ => {}
                }
                let mut homes: Vec<usize> = table.slots().iter().map(|s| home_bucket(s.pos)).collect();
                homes.sort_unstable();
                homes.dedup();
                shared_homes += table.len() - homes.len();
                for x in range.clone() {
                    for y in range.clone() {
                        let cell = Pos::new(x, y);
                        let scanned = table.slots().iter().position(|s| s.pos == cell);
                        assert_eq!(table.find(cell), scanned, "{cell} in {:?}", table.slots());
                    }
                }
            }
        }
        // Cards sharing a home bucket: the probes and the shifts back ran.
        assert!(shared_homes > 2_000, "{shared_homes}");
    }

    #[test]
    fn the_order_key_orders_cells_as_they_compare() {
        let range = -MAX_COORDINATE..=MAX_COORDINATE;
        let cells: Vec<Pos> = range
            .clone()
            .flat_map(|x| range.clone().map(move |y| Pos::new(x, y)))
            .collect();
        for pair in cells.windows(2) {
            assert!(pair[0] < pair[1]);
            assert!(pair[0].order_key() < pair[1].order_key(), "{pair:?}");
        }
    }
}
