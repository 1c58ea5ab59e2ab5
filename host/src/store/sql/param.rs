//! The values a shared statement binds, and `args!` to write them.

/// One bound value of a statement.
#[derive(Debug, Clone, Copy)]
pub enum Param<'a> {
    Int(Option<i64>),
    Text(Option<&'a str>),
    /// A list of texts, tested with [`Dialect::not_in_list`].
    List(&'a [&'a str]),
}

impl From<i64> for Param<'_> {
    fn from(v: i64) -> Self {
        Param::Int(Some(v))
    }
}
impl From<Option<i64>> for Param<'_> {
    fn from(v: Option<i64>) -> Self {
        Param::Int(v)
    }
}
impl From<u32> for Param<'_> {
    fn from(v: u32) -> Self {
        Param::Int(Some(i64::from(v)))
    }
}
impl<'a> From<&'a str> for Param<'a> {
    fn from(v: &'a str) -> Self {
        Param::Text(Some(v))
    }
}
impl<'a> From<&'a String> for Param<'a> {
    fn from(v: &'a String) -> Self {
        Param::Text(Some(v))
    }
}
impl<'a> From<&'a Option<String>> for Param<'a> {
    fn from(v: &'a Option<String>) -> Self {
        Param::Text(v.as_deref())
    }
}
impl<'a> From<Option<&'a str>> for Param<'a> {
    fn from(v: Option<&'a str>) -> Self {
        Param::Text(v)
    }
}
impl<'a> From<&'a [&'a str]> for Param<'a> {
    fn from(v: &'a [&'a str]) -> Self {
        Param::List(v)
    }
}

/// `args![a, b, c]`: the parameters of a statement, each through `Param::from`.
macro_rules! args {
    ($($value:expr),* $(,)?) => {
        &[$($crate::store::sql::Param::from($value)),*]
    };
}
pub(crate) use args;
