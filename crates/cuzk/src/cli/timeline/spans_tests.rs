use super::*;

fn line(t: f64, event: &str, job: u64, parts: &[u64], device: Option<&str>) -> String {
    let parts: Vec<String> = parts.iter().map(u64::to_string).collect();
    let device = device.map(|d| format!(",\"device\":\"{d}\"")).unwrap_or_default();
    format!("{{\"t_ms\":{t},\"event\":\"{event}\",\"job\":{job},\"partitions\":[{}]{device}}}\n", parts.join(","))
}

#[test]
fn synthesis_takes_the_first_free_lane_and_waits_end_at_the_prove_call() {
    let text = [
        line(0.0, "submit", 1, &[], None),
        line(1.0, "synth_start", 1, &[0], None),
        line(2.0, "synth_start", 1, &[1], None),
        line(5.0, "synth_end", 1, &[0], None),
        line(6.0, "synth_start", 1, &[2], None),
        line(7.0, "synth_end", 1, &[1], None),
        line(8.0, "prove_start", 1, &[0, 1], Some("cuda:0")),
        line(9.0, "synth_end", 1, &[2], None),
        line(12.0, "prove_end", 1, &[0, 1], Some("cuda:0")),
        line(12.5, "prove_start", 1, &[2], Some("cuda:0")),
        line(14.0, "prove_end", 1, &[2], Some("cuda:0")),
        line(14.0, "done", 1, &[], None),
    ]
    .concat();
    let s = read(&text).unwrap();
    assert_eq!((s.jobs, s.end_ms), (1, 14.0));
    assert_eq!(s.lanes(), [Lane::Device("cuda:0".into()), Lane::Synthesis(0), Lane::Synthesis(1)]);
    let of = |kind: Kind| s.spans.iter().filter(|x| x.kind == kind).cloned().collect::<Vec<_>>();
    // Part 2 starts when lane 0 is free again (part 0 ended at 5).
    let synth = of(Kind::Synthesis);
    let part2 = synth.iter().find(|x| x.label == "job 1 part 2").unwrap();
    assert_eq!((part2.lane.clone(), part2.start_ms, part2.end_ms), (Lane::Synthesis(0), 6.0, 9.0));
    assert_eq!(synth.len(), 3);
    let waits: Vec<_> = of(Kind::Wait).iter().map(|w| (w.label.clone(), w.start_ms, w.end_ms)).collect();
    assert_eq!(
        waits,
        [
            ("job 1 part 0 waits".to_string(), 5.0, 8.0),
            ("job 1 part 1 waits".to_string(), 7.0, 8.0),
            ("job 1 part 2 waits".to_string(), 9.0, 12.5),
        ]
    );
    let calls: Vec<_> = of(Kind::Prove).iter().map(|c| (c.label.clone(), c.start_ms, c.end_ms)).collect();
    assert_eq!(calls, [("job 1 [0,1]".to_string(), 8.0, 12.0), ("job 1 [2]".to_string(), 12.5, 14.0)]);
}

#[test]
fn a_cut_off_timeline_ends_its_open_spans_at_the_last_event() {
    let text = [
        line(0.0, "synth_start", 4, &[0], None),
        line(3.0, "prove_start", 3, &[1], Some("cuda:1")),
        line(4.0, "synth_start", 4, &[1], None),
    ]
    .concat();
    let s = read(&text).unwrap();
    assert_eq!(s.spans.len(), 3);
    assert!(s.spans.iter().all(|x| x.end_ms == 4.0), "{:?}", s.spans);
}

#[test]
fn lines_out_of_time_order_are_sorted_and_malformed_lines_are_named() {
    let text = [line(2.0, "synth_end", 1, &[0], None), line(1.0, "synth_start", 1, &[0], None)].concat();
    let s = read(&text).unwrap();
    assert_eq!((s.spans[0].start_ms, s.spans[0].end_ms), (1.0, 2.0));
    let err = read(&format!("{}not json\n", line(0.0, "submit", 1, &[], None))).unwrap_err();
    assert!(err.starts_with("line 2: "), "{err}");
    let err = read("{\"t_ms\":-1,\"event\":\"submit\",\"job\":1}\n").unwrap_err();
    assert!(err.contains("line 1") && err.contains("not a time"), "{err}");
    assert!(read("").unwrap().spans.is_empty());
}
