//! The bearer header read: the scheme in any case, and nothing else.

use super::*;

fn header(value: &str) -> MetadataMap {
    let mut m = MetadataMap::new();
    m.insert("authorization", value.parse().unwrap());
    m
}

#[test]
fn the_bearer_scheme_is_read_in_any_case_and_nothing_else() {
    assert_eq!(bearer(&header("Bearer abc")).unwrap(), "abc");
    assert_eq!(bearer(&header("bearer  abc ")).unwrap(), "abc");
    for bad in ["Basic abc", "Bearer", "Bearer ", "abc"] {
        assert_eq!(bearer(&header(bad)).unwrap_err().code(), tonic::Code::Unauthenticated, "{bad}");
    }
    assert_eq!(bearer(&MetadataMap::new()).unwrap_err().code(), tonic::Code::Unauthenticated);
}
