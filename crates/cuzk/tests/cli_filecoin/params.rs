//! `cuzk filecoin params`: the listing of the run's cache, and its refusals.

use super::common::{cuzk, text};
use super::{filecoin_support, path, refused, CIRCUITS};

#[test]
fn params_lists_the_cache_and_refuses_to_replace_files_or_start_hours_of_setup() {
    let dir = super::params_dir(&["winning-2k", "wpost-2k"]);
    let listed = ["--circuit", "winning-2k", "--circuit", "wpost-8m", "--json"];
    let o = cuzk(&[&["filecoin", "params", "--params-dir", path(dir)][..], &listed].concat());
    assert!(o.status.success(), "{}", text(&o));
    let lines: Vec<serde_json::Value> =
        String::from_utf8_lossy(&o.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2, "{}", text(&o));
    assert_eq!(lines[0]["circuit_id"], "winning-2k");
    for what in ["params", "vk", "meta"] {
        let present = &lines[0][what];
        assert_eq!(present["present"], true, "{}", lines[0]);
        let on_disk = std::fs::metadata(dir.join(present["file"].as_str().unwrap())).unwrap().len();
        assert_eq!(present["bytes"], on_disk);
        assert_eq!(lines[1][what]["present"], false, "{}", lines[1]);
    }
    assert!(lines[0]["params"]["file"].as_str().unwrap().starts_with("v28-proof-of-spacetime-fallback-"));

    // Every kind at every size by default, present only what this run wrote
    // (PoRep's and SnapDeals' as well once their tests have written them).
    let o = cuzk(&["filecoin", "params", "--params-dir", path(dir), "--json"]);
    assert!(o.status.success(), "{}", text(&o));
    let all: Vec<serde_json::Value> =
        String::from_utf8_lossy(&o.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let ids: Vec<&str> = all.iter().map(|l| l["circuit_id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 20, "{ids:?}");
    for kind in ["porep", "snap", "wpost", "winning"] {
        for size in ["2k", "8m", "512m", "32g", "64g"] {
            assert!(ids.contains(&format!("{kind}-{size}").as_str()), "{kind}-{size} missing from {ids:?}");
        }
    }
    let present: Vec<&str> =
        all.iter().filter(|l| l["params"]["present"] == true).map(|l| l["circuit_id"].as_str().unwrap()).collect();
    assert!(present.contains(&"wpost-2k") && present.contains(&"winning-2k"), "{}", text(&o));
    assert!(present.iter().all(|id| CIRCUITS.contains(id)), "{}", text(&o));

    let o = cuzk(&["filecoin", "params", "--params-dir", path(dir), "--circuit", "wpost-2k"]);
    assert!(o.status.success(), "{}", text(&o));
    let listing = String::from_utf8_lossy(&o.stdout);
    let whole = listing.starts_with("wpost-2k\n") && listing.contains(" bytes  v28-") && !listing.contains("missing");
    assert!(whole, "{listing}");

    let refusals: [(&[&str], &[&str]); 4] = [
        (&["--write-test-params", "winning-2k"], &["exists", "remove it first"]),
        (&["--write-test-params", "porep-32g"], &["porep-32g", "--i-know-this-takes-hours"]),
        (&["--write-test-params", "wpost-64g"], &["hours"]),
        (&["--circuit", "porep-1g"], &["porep-1g"]),
    ];
    for (args, names) in refusals {
        let mut all = vec!["filecoin", "params", "--params-dir", path(dir)];
        all.extend_from_slice(args);
        refused(&cuzk(&all), &args.join(" "), names);
    }
    let missing = filecoin_support::scratch().join("no-such-cache");
    let o = cuzk(&["filecoin", "params", "--params-dir", path(&missing)]);
    refused(&o, "missing dir", &["--params-dir", "no-such-cache"]);
}
