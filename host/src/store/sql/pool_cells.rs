//! The pools' values as the columns they are stored in: a window's six cells, a cost's three,
//! and back (see `pool_rows` and `pools`).

use super::super::pools::{Cost, WindowState};
use super::{to_i64, to_u64};

/// Columns of a pool row, in the order both backends read them.
pub const POOL_COLUMNS: &str = "name, version, rest_limit, rest_remaining, rest_reserve, rest_reset_ms, \
     rest_observed_ms, rest_source, graphql_limit, graphql_remaining, graphql_reserve, graphql_reset_ms, \
     graphql_observed_ms, graphql_source, hold_until_ms, hold_reason, updated_ms";

/// The flat values of one resource's window (all `None` when unknown), in column order.
pub type WindowCells = (
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<String>,
);

pub fn window_cells(w: Option<&WindowState>) -> WindowCells {
    match w {
        None => (None, None, None, None, None, None),
        Some(w) => (
            Some(to_i64(w.limit)),
            Some(to_i64(w.remaining)),
            Some(to_i64(w.reserve)),
            Some(to_i64(w.reset_ms)),
            Some(to_i64(w.observed_ms)),
            Some(w.source.clone()),
        ),
    }
}

pub fn window_of_cells(cells: WindowCells) -> Option<WindowState> {
    let (Some(limit), Some(remaining), Some(reserve), Some(reset), Some(observed), Some(source)) =
        cells
    else {
        return None;
    };
    Some(WindowState {
        limit: to_u64(limit),
        remaining: to_u64(remaining),
        reserve: to_u64(reserve),
        reset_ms: to_u64(reset),
        observed_ms: to_u64(observed),
        source,
    })
}

/// A cost from its three columns (`None` when all are `NULL`).
pub fn cost_of_cells(
    rest: Option<i64>,
    graphql: Option<i64>,
    content: Option<i64>,
) -> Option<Cost> {
    if rest.is_none() && graphql.is_none() && content.is_none() {
        return None;
    }
    Some(Cost {
        rest: rest.map_or(0, to_u64),
        graphql: graphql.map_or(0, to_u64),
        content: content.map_or(0, to_u64),
    })
}

pub fn cost_cells(cost: Option<&Cost>) -> (Option<i64>, Option<i64>, Option<i64>) {
    match cost {
        None => (None, None, None),
        Some(c) => (
            Some(to_i64(c.rest)),
            Some(to_i64(c.graphql)),
            Some(to_i64(c.content)),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The store writes the three cells together, so only "all `NULL`" means unknown; a cell
    /// `NULL` beside others (a row edited by hand) reads as 0.
    #[test]
    fn a_cost_is_unknown_only_when_all_three_cells_are_null() {
        assert_eq!(cost_of_cells(None, None, None), None);
        let cost = |rest, graphql, content| {
            Some(Cost {
                rest,
                graphql,
                content,
            })
        };
        assert_eq!(cost_of_cells(Some(3), None, None), cost(3, 0, 0));
        assert_eq!(cost_of_cells(None, Some(4), None), cost(0, 4, 0));
        assert_eq!(cost_of_cells(None, None, Some(1)), cost(0, 0, 1));
        assert_eq!(cost_of_cells(Some(3), Some(4), Some(1)), cost(3, 4, 1));
        assert_eq!(
            cost_cells(cost(3, 4, 1).as_ref()),
            (Some(3), Some(4), Some(1))
        );
        assert_eq!(cost_cells(None), (None, None, None));
    }
}
