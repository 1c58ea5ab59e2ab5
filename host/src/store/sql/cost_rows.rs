//! A planned cost as rows, one per resource by name (migration 13 on SQLite, 12 on PostgreSQL):
//! `deferral_costs (deferral_id, resource, amount)` and `admission_costs (admission_seq,
//! resource, amount)`. A cost is unknown when its owner has no row of a name this program
//! reads; a row of another name (a newer host's resource) is kept through every write and
//! never read as one of ours. The old `*_cost` columns of `deferrals` and `admissions` are
//! copied here by the migration and no longer read or written.

use super::super::pools::Cost;
use super::super::StoreError;
use super::{to_i64, to_u64, Dialect, Param, SqlConn, SqlRow};

/// The names a cost's rows are kept under: each resource's wire name (`rest`, `graphql`) and
/// the plan's content-creating requests (`content`), as [`Cost::names`] gives them. A resource
/// added later has no row in a cost written before it: 0 there, as a `NULL` cell beside others.
fn cost_names() -> impl Iterator<Item = &'static str> {
    Cost::names()
}

/// The old `*_cost` columns the migration copied: the names there were then (never more).
const MIGRATED_NAMES: [&str; 3] = ["rest", "graphql", "content"];

/// Where a cost's rows are: a deferral's or an admission's.
#[derive(Debug, Clone, Copy)]
pub enum CostOf {
    Deferral,
    Admission,
}

impl CostOf {
    fn table(self) -> (&'static str, &'static str) {
        match self {
            CostOf::Deferral => ("deferral_costs", "deferral_id"),
            CostOf::Admission => ("admission_costs", "admission_seq"),
        }
    }

    /// The cells of a cost, one per name (`NULL` when it has no row), given
    /// [`CostOf::join`] in the `FROM`; read back with [`read_cost`].
    pub fn cells(self) -> String {
        cost_names()
            .map(|name| format!("cost_{name}.amount"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The joins that give [`CostOf::cells`] for the row `owner` (`d.id`, `admissions.seq`): one
    /// primary-key lookup per name (a join, which both planners run faster over a long list
    /// than a subquery per cell).
    pub fn join(self, owner: &str) -> String {
        let (table, key) = self.table();
        cost_names()
            .map(|name| {
                format!(
                    " LEFT JOIN {table} cost_{name} ON cost_{name}.{key} = {owner} AND cost_{name}.resource = '{name}'"
                )
            })
            .collect()
    }

    /// Replaces the rows of our names of `owner` with `cost`'s (`None`: unknown, no row).
    pub fn write(
        self,
        conn: &mut dyn SqlConn,
        owner: Param<'_>,
        cost: Option<&Cost>,
    ) -> Result<(), StoreError> {
        let (table, key) = self.table();
        for name in cost_names() {
            conn.execute(
                &format!("DELETE FROM {table} WHERE {key} = ?1 AND resource = ?2"),
                &[owner, Param::from(name)],
            )?;
            if let Some(cost) = cost {
                conn.execute(
                    &format!("INSERT INTO {table} ({key}, resource, amount) VALUES (?1, ?2, ?3)"),
                    &[
                        owner,
                        Param::from(name),
                        Param::from(to_i64(cost.named(name).unwrap_or(0))),
                    ],
                )?;
            }
        }
        Ok(())
    }
}

/// The cost in the cells of [`CostOf::cells`], from `at`: unknown when none of our names has a
/// row (the store writes them together, so that is all or none of them).
pub fn read_cost(row: &dyn SqlRow, at: usize) -> Result<Option<Cost>, StoreError> {
    let (mut cost, mut known) = (Cost::default(), false);
    for (i, name) in cost_names().enumerate() {
        let cell = row.opt_i64(at + i)?;
        known |= cell.is_some();
        cost = cost.with_named(name, cell.map_or(0, to_u64));
    }
    Ok(known.then_some(cost))
}

/// The migration: the two tables, and every cost the old columns held copied into rows (a
/// cost is known when any of its three columns is not `NULL`; a `NULL` beside others is 0).
pub fn ddl(d: &dyn Dialect) -> String {
    let mut text = String::from(
        r#"
CREATE TABLE deferral_costs (
    deferral_id TEXT NOT NULL,
    resource    TEXT NOT NULL,
    amount      {int} NOT NULL,
    PRIMARY KEY (deferral_id, resource)
);
CREATE TABLE admission_costs (
    admission_seq {int} NOT NULL,
    resource      TEXT NOT NULL,
    amount        {int} NOT NULL,
    PRIMARY KEY (admission_seq, resource)
);
"#,
    );
    for (of, owner, key) in [
        (CostOf::Deferral, "deferrals", "id"),
        (CostOf::Admission, "admissions", "seq"),
    ] {
        let (table, column) = of.table();
        for name in MIGRATED_NAMES {
            text.push_str(&format!(
                "INSERT INTO {table} ({column}, resource, amount) SELECT {key}, '{name}', COALESCE({name}_cost, 0) \
                 FROM {owner} WHERE rest_cost IS NOT NULL OR graphql_cost IS NOT NULL OR content_cost IS NOT NULL;\n"
            ));
        }
    }
    text.replace("{int}", d.int())
}

/// Binds an admission's `seq` as a cost's owner.
pub fn seq_owner(seq: u64) -> Param<'static> {
    Param::from(to_i64(seq))
}
