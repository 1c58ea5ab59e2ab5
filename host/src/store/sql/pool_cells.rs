//! The pools' values as the columns they are stored in: a window's six cells, a cost's three,
//! and back (see `pool_rows` and `pools`).

use super::super::pools::{Cost, WindowState};
use super::super::StoreError;
use super::{to_i64, to_u64, SqlRow};

/// Columns of a pool row, in the order both backends read them (its windows are rows of
/// `pool_windows`, see [`WINDOW_COLUMNS`]).
pub const POOL_COLUMNS: &str = "name, version, hold_until_ms, hold_reason, updated_ms";

/// Columns of a window row, in the order [`window_of_row`] reads them.
pub const WINDOW_COLUMNS: &str =
    "pool, resource, window_limit, remaining, spent, spent_at_report, \
     reserve, reset_ms, reset_known, opened_after_ms, length_ms, next_limit, observed_ms, source";

/// A window's row: `(resource, window)`, the resource by its stored name (rate-limit buckets
/// are an open set: a row of one this program does not meter is read, kept and shown).
pub fn window_of_row(row: &dyn SqlRow) -> Result<(String, WindowState), StoreError> {
    Ok((
        row.text(1)?,
        WindowState {
            limit: row.u64(2)?,
            remaining: row.u64(3)?,
            spent: row.u64(4)?,
            spent_at_report: row.u64(5)?,
            reserve: row.u64(6)?,
            reset_ms: row.u64(7)?,
            reset_known: row.u64(8)? != 0,
            opened_after_ms: row.u64(9)?,
            length_ms: row.u64(10)?,
            next_limit: row.u64(11)?,
            observed_ms: row.u64(12)?,
            source: row.text(13)?,
        },
    ))
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
