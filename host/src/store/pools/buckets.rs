//! The resources a pool meters, tied to the core's resource table
//! (`deferral_core::decision::RESOURCES`): each metered resource is the wire's name of one of
//! its rows (`rest` for GitHub's `core` bucket, `graphql`), and GitHub's name of the bucket is
//! the row's. Every other bucket GitHub names is read and left alone (an open set).

use super::Resource;

/// GitHub's name of a metered resource's bucket (`GET /rate_limit`'s `resources`,
/// `x-ratelimit-resource`): [`Resource::bucket`], its row's name in the core's table.
pub fn bucket(resource: Resource) -> &'static str {
    resource.bucket()
}

/// The metered resource of GitHub's bucket `name` (`None`: one this host does not meter).
pub fn resource_of_bucket(name: &str) -> Option<Resource> {
    Resource::of_bucket(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use deferral_core::decision::RESOURCES;

    /// A row added to the core's table is a bucket the gate checks: the pools must meter it
    /// too (a wire name in `deferral_protocol::Resource`), or this fails.
    #[test]
    fn every_row_of_the_core_table_is_a_metered_resource_and_back() {
        for row in &RESOURCES {
            let r = resource_of_bucket(row.name).unwrap_or_else(|| {
                panic!("the core checks {:?}: the pools must meter it", row.name)
            });
            assert_eq!(bucket(r), row.name);
        }
        assert_eq!(RESOURCES.len(), Resource::ALL.len());
        assert_eq!(resource_of_bucket("search"), None);
        assert_eq!(
            resource_of_bucket("rest"),
            None,
            "the wire's name is not a bucket"
        );
    }
}
