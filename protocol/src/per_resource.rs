//! One value per [`Resource`], in the order of [`Resource::ALL`]: what the cost, the windows
//! and the line keep per resource, so that none of them names a resource.

use crate::Resource;
use std::ops::{Index, IndexMut};

/// A value for each resource, indexed by [`Resource`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PerResource<T>([T; Resource::COUNT]);

impl<T> PerResource<T> {
    /// Each resource's value from `f`.
    pub fn from_fn(mut f: impl FnMut(Resource) -> T) -> PerResource<T> {
        PerResource(Resource::ALL.map(&mut f))
    }

    /// Every resource with its value, in the wire's order.
    pub fn iter(&self) -> impl Iterator<Item = (Resource, &T)> + '_ {
        Resource::ALL.into_iter().zip(self.0.iter())
    }

    /// Each value through `f`.
    pub fn map<U>(&self, mut f: impl FnMut(Resource, &T) -> U) -> PerResource<U> {
        PerResource::from_fn(|r| f(r, &self[r]))
    }
}

impl<T: Default> Default for PerResource<T> {
    fn default() -> PerResource<T> {
        PerResource::from_fn(|_| T::default())
    }
}

impl<T> Index<Resource> for PerResource<T> {
    type Output = T;

    fn index(&self, r: Resource) -> &T {
        &self.0[r.index()]
    }
}

impl<T> IndexMut<Resource> for PerResource<T> {
    fn index_mut(&mut self, r: Resource) -> &mut T {
        &mut self.0[r.index()]
    }
}
