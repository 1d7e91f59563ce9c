//! Sliding disconnected lily pads back to the group around the log.
//!
//! RULING (ours): a card slides through open water (empty cells, moving
//! orthogonally, around other cards) to any empty cell next to the group
//! that contains the log; it may not pass through other cards, so a hole
//! enclosed by cards cannot be reached. The rulebook's example slides a card
//! "left and then up", so a slide may turn.
//!
//! The straight-line rule ("if possible, the group must not become a
//! straight line") is enforced on each slide: a slide is refused when every
//! way of finishing from it ends in a straight line while some other way of
//! finishing does not.

use std::sync::Arc;

use super::grid::{mask_indices, CellSet, Line, Pos, SlotMask, Table, MAX_SLOTS};

/// What every slide from one table shares: the cards connected to the
/// log, the empty cells next to them, and the open water around the table.
#[derive(Debug)]
pub struct SlideContext {
    pub connected: SlotMask,
    next_to_group: CellSet,
    outer_water: CellSet,
    /// The cells next to the group in the open water, sorted.
    open_targets: Vec<Pos>,
}

impl SlideContext {
    /// Whether one card alone is cut off from the log: a slide always ends
    /// next to the group, so after it every card is connected.
    pub fn one_card_cut_off(&self, table: &Table) -> bool {
        (table.all_mask() & !self.connected).count_ones() == 1
    }

    pub fn new(table: &Table) -> SlideContext {
        let connected_cells = table.connected_cells();
        SlideContext::with_connected(table, table.mask_of(&connected_cells), &connected_cells)
    }

    fn with_connected(
        table: &Table,
        connected: SlotMask,
        connected_cells: &CellSet,
    ) -> SlideContext {
        // The sets found straight into their fields, not moved in (1.5 KB
        // each).
        let mut context = SlideContext {
            connected,
            next_to_group: table.empty_neighbours(connected_cells),
            outer_water: table.outer_water(),
            open_targets: Vec::new(),
        };
        let mut by_row = Vec::with_capacity(64);
        table.cells_of_both(&context.next_to_group, &context.outer_water, &mut by_row);
        context.open_targets.reserve_exact(by_row.len());
        sort_by_column(&by_row, &mut context.open_targets);
        context
    }

    /// Whether the final layout must avoid a straight line: the group is a
    /// line now and some way of finishing is not. (Slides only add cards to
    /// the group, so once it is not a line no slide can make it one.)
    fn must_avoid_line(&self, table: &Table) -> bool {
        table.is_straight_line(self.connected) && can_end_off_line(&mut table.clone())
    }

    /// Whether `to` is a cell next to the group that the card at `index`
    /// can reach through water: the open water around the table, or an
    /// enclosed pocket next to the card.
    fn can_reach(&self, table: &Table, index: usize, to: Pos) -> bool {
        if !self.next_to_group.contains(to) {
            return false;
        }
        let from = table.slot(index).pos;
        let water = from
            .neighbours()
            .into_iter()
            .filter(|&cell| table.is_empty_cell(cell));
        if self.outer_water.contains(to) {
            return water.clone().any(|cell| self.outer_water.contains(cell));
        }
        water
            .filter(|&cell| !self.outer_water.contains(cell))
            .any(|cell| table.pocket_from(cell).contains(to))
    }

    /// The cells the disconnected card at `index` may slide to, sorted,
    /// before the straight-line rule.
    fn destinations(&self, table: &Table, index: usize, out: &mut Vec<Pos>) {
        out.clear();
        let from = table.slot(index).pos;
        let water = from
            .neighbours()
            .into_iter()
            .filter(|&cell| table.is_empty_cell(cell));
        if water.clone().any(|cell| self.outer_water.contains(cell)) {
            out.extend_from_slice(&self.open_targets);
        }
        let mut pockets = water
            .filter(|&cell| !self.outer_water.contains(cell))
            .peekable();
        if pockets.peek().is_none() {
            return;
        }
        for cell in pockets {
            let pocket = table.pocket_from(cell);
            table.for_each_cell_of(&self.next_to_group, |to| {
                if pocket.contains(to) {
                    out.push(to);
                }
            });
        }
        out.sort_unstable_by_key(|cell| cell.order_key());
        out.dedup();
    }
}

/// The legal slides of the table in the slide phase, kept from the step
/// that found them, so that listing them does not build the context again
/// (shared: a cloned state shares the list). Derived data: equal states
/// may differ in it, so a state's equality and hash leave it out.
/// With the list it keeps whether one card alone is cut off from the log
/// (then any of its slides joins the whole table again, with no search).
#[derive(Debug, Clone, Default)]
pub struct KnownSlides(Option<(SharedSlides, bool)>);

type SharedSlides = Arc<[(Pos, Pos)]>;

impl KnownSlides {
    pub const UNKNOWN: KnownSlides = KnownSlides(None);

    pub fn remember(slides: &[(Pos, Pos)], one_card_cut_off: bool) -> KnownSlides {
        KnownSlides(Some((Arc::from(slides), one_card_cut_off)))
    }

    pub fn get(&self) -> Option<&[(Pos, Pos)]> {
        self.0.as_ref().map(|(slides, _)| &**slides)
    }

    /// Whether the slides are known to move the one card cut off.
    pub fn one_card_cut_off(&self) -> bool {
        self.0.as_ref().is_some_and(|&(_, one)| one)
    }
}

/// Every legal slide `(from, to)` of the current table, sorted.
pub fn legal_slides(table: &Table, out: &mut Vec<(Pos, Pos)>) {
    legal_slides_in(table, &SlideContext::new(table), usize::MAX, out);
}

/// When some card is cut off from the log, every legal slide (sorted)
/// into `out`, and whether one card alone is cut off; `None` when every
/// card is connected (checked without the water). The context is built and
/// dropped here, never moved.
pub fn slides_if_disconnected(table: &Table, out: &mut Vec<(Pos, Pos)>) -> Option<bool> {
    let connected_cells = table.connected_cells();
    let connected = table.mask_of(&connected_cells);
    if connected == table.all_mask() {
        return None;
    }
    let context = SlideContext::with_connected(table, connected, &connected_cells);
    legal_slides_in(table, &context, usize::MAX, out);
    Some(context.one_card_cut_off(table))
}

/// The first `limit` of [`legal_slides`], with the context already built
/// (two tell a forced slide from a choice).
pub fn legal_slides_in(
    table: &Table,
    context: &SlideContext,
    limit: usize,
    out: &mut Vec<(Pos, Pos)>,
) {
    out.clear();
    let avoid_line = context.must_avoid_line(table);
    let line = table.line_of(context.connected);
    let mut trial = avoid_line.then(|| table.clone());
    let mut cells = Vec::with_capacity(64);
    // Cards in cell order and each card's destinations sorted: the slides
    // come out sorted.
    let mut disconnected = [0usize; MAX_SLOTS];
    let mut n_disconnected = 0;
    for index in mask_indices(table.all_mask() & !context.connected) {
        disconnected[n_disconnected] = index;
        n_disconnected += 1;
    }
    let disconnected = &mut disconnected[..n_disconnected];
    disconnected.sort_unstable_by_key(|&index| table.slot(index).pos);
    for &index in disconnected.iter() {
        context.destinations(table, index, &mut cells);
        let from = table.slot(index).pos;
        for &to in &cells {
            let allowed = match trial.as_mut() {
                None => true,
                Some(trial) => leaves_line(line, to) || ends_off_line_after(trial, index, to),
            };
            if allowed {
                out.push((from, to));
                if out.len() >= limit {
                    return;
                }
            }
        }
    }
    debug_assert!(out.is_sorted());
}

/// Whether sliding the card at `from` to `to` is legal now.
pub fn slide_is_legal(table: &Table, from: Pos, to: Pos) -> bool {
    let context = SlideContext::new(table);
    let Some(index) = table.find(from) else {
        return false;
    };
    context.connected >> index & 1 == 0
        && context.can_reach(table, index, to)
        && (!context.must_avoid_line(table)
            || leaves_line(table.line_of(context.connected), to)
            || ends_off_line_after(&mut table.clone(), index, to))
}

/// `cells` listed row by row (by `y`, then `x`) into `out` sorted as
/// `Pos` sorts (by `x`, then `y`): a stable counting sort on `x`.
fn sort_by_column(cells: &[Pos], out: &mut Vec<Pos>) {
    out.clear();
    let Some(low) = cells.iter().map(|cell| cell.x).min() else {
        return;
    };
    let high = cells.iter().map(|cell| cell.x).max().unwrap_or(low);
    let mut starts = [0u8; 256];
    for cell in cells {
        starts[(cell.x as i32 - low as i32) as usize + 1] += 1;
    }
    for column in 1..=(high as i32 - low as i32) as usize {
        starts[column] += starts[column - 1];
    }
    out.resize(cells.len(), Pos::LOG);
    for &cell in cells {
        let start = &mut starts[(cell.x as i32 - low as i32) as usize];
        out[*start as usize] = cell;
        *start += 1;
    }
    debug_assert!(out.is_sorted());
}

/// Whether a card slid to `to` takes the group off its line for good.
fn leaves_line(line: Option<Line>, to: Pos) -> bool {
    line.is_some_and(|line| !line.contains(to))
}

/// Whether sliding `index` to `to` still allows a final layout that is not
/// a straight line.
fn ends_off_line_after(table: &mut Table, index: usize, to: Pos) -> bool {
    let from = table.slot(index).pos;
    table.move_slot(index, to);
    let possible = can_end_off_line(table);
    table.move_slot(index, from);
    possible
}

/// Whether some sequence of slides ends with a connected table that is not
/// a straight line. Depth-first; it stops at the first success, which in
/// practice comes within a slide or two.
pub fn can_end_off_line(table: &mut Table) -> bool {
    let connected_cells = table.connected_cells();
    let connected = table.mask_of(&connected_cells);
    if !table.is_straight_line(connected) {
        return true;
    }
    if connected == table.all_mask() {
        return false;
    }
    let context = SlideContext::with_connected(table, connected, &connected_cells);
    let disconnected = table.all_mask() & !context.connected;
    let line = table.line_of(context.connected);
    let mut cells = Vec::new();
    let mut candidates = Vec::new();
    for index in mask_indices(disconnected) {
        context.destinations(table, index, &mut cells);
        if cells.iter().any(|&to| leaves_line(line, to)) {
            return true;
        }
        candidates.extend(cells.iter().map(|&to| (index, to)));
    }
    candidates
        .into_iter()
        .any(|(index, to)| ends_off_line_after(table, index, to))
}

#[cfg(test)]
mod tests {
    use super::super::grid::{Slot, NEUTRAL};
    use super::*;

    fn table_with(cells: &[(i8, i8)]) -> Table {
        let mut table = Table::with_log();
        for &(x, y) in cells {
            table.add(Slot::pad(Pos::new(x, y), 2, NEUTRAL));
        }
        table
    }

    #[test]
    fn a_disconnected_card_may_slide_next_to_any_card_of_the_group() {
        // "Cartas Vitória-Régia podem deslizar qualquer número de espaços até
        // que estejam adjacentes ao grupo ... que inclui a Carta Tronco."
        let table = table_with(&[(1, 0), (3, 0)]);
        let mut slides = Vec::new();
        legal_slides(&table, &mut slides);
        let from = Pos::new(3, 0);
        assert!(slides.iter().all(|(f, _)| *f == from));
        let to: Vec<Pos> = slides.iter().map(|(_, t)| *t).collect();
        // Not (2,0) (a straight line is avoidable) nor (-1,0).
        assert_eq!(
            to,
            vec![
                Pos::new(0, -1),
                Pos::new(0, 1),
                Pos::new(1, -1),
                Pos::new(1, 1)
            ]
        );
    }

    #[test]
    fn a_straight_line_is_allowed_when_nothing_else_is_possible() {
        // "Se possível, ... o grupo de cartas NÃO DEVE se tornar uma linha reta."
        let table = table_with(&[(2, 0)]);
        let mut slides = Vec::new();
        legal_slides(&table, &mut slides);
        assert_eq!(
            slides.len(),
            4,
            "log + one pad is always a line: {slides:?}"
        );
    }

    #[test]
    fn a_first_slide_that_forces_a_line_is_refused() {
        // Log alone; two cards far away in one column. Placing the first
        // above the log is fine (the second can still go beside it).
        let table = table_with(&[(5, 5), (5, 7)]);
        let mut slides = Vec::new();
        legal_slides(&table, &mut slides);
        assert_eq!(slides.len(), 8);
        let mut trial = table.clone();
        trial.move_slot(1, Pos::new(0, 1));
        legal_slides(&trial, &mut slides);
        assert!(
            !slides
                .iter()
                .any(|(_, to)| *to == Pos::new(0, 2) || *to == Pos::new(0, -1)),
            "{slides:?}"
        );
        assert!(slides.iter().any(|(_, to)| *to == Pos::new(1, 1)));
    }

    #[test]
    fn a_card_cannot_slide_into_an_enclosed_hole() {
        // A ring of connected cards around (2,1); a far card cannot get in.
        let ring = [
            (1, 0),
            (2, 0),
            (3, 0),
            (3, 1),
            (3, 2),
            (2, 2),
            (1, 2),
            (1, 1),
            (9, 9),
        ];
        let table = table_with(&ring);
        let mut slides = Vec::new();
        legal_slides(&table, &mut slides);
        assert!(!slides.is_empty());
        assert!(!slides.iter().any(|(_, to)| *to == Pos::new(2, 1)));
    }
}
