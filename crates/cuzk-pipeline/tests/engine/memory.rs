use std::sync::Arc;

use blstrs::Scalar;
use cuzk_pipeline::{Config, Engine, EngineError, ProveBackend, SynthesisMode};
use cuzk_synth::workloads::Workload;
use cuzk_synth::RecordedShape;

use crate::devices::{Holding, WitnessTaking};
use crate::{assert_verifies, config, job, only_recording, params, peak_partitions_held, sequential, Buf, SIZE};

/// The most partitions held at once by a job of 8 on a witness-taking
/// device, with a budget of the parameters, the recording, one partition
/// with a/b/c and `room(one)` more.
fn witness_partitions_held(room: fn(u64) -> u64, seed: u64) -> i64 {
    witness_partitions_held_with(room, seed, config(1).synthesis_workers)
}

/// The same with `workers` synthesis threads.
fn witness_partitions_held_with(room: fn(u64) -> u64, seed: u64, workers: usize) -> i64 {
    let (path, params) = params();
    let file_len = std::fs::metadata(path).unwrap().len();
    let one = Engine::partition_bytes(params);
    let recording = RecordedShape::record(Workload::MulChain.circuit::<Scalar>(SIZE, 0).unwrap()).unwrap().0;
    let timeline = Buf::default();
    let backends: Vec<Arc<dyn ProveBackend>> = vec![Arc::new(WitnessTaking::new(std::time::Duration::from_millis(40)))];
    let mut cfg = Config { backends: Some(backends), synthesis_workers: workers, ..config(1) };
    cfg.memory_budget = file_len + recording.heap_bytes() as u64 + one + room(one);
    let cfg_budget = cfg.memory_budget;
    cfg.timeline = Some(Box::new(timeline.clone()));
    let engine = Engine::new(cfg).unwrap();
    let (j, inputs) = job(path, 8, seed);
    let r = engine.submit(j).unwrap().wait().unwrap();
    assert_verifies(&r.proofs, &inputs);
    // Each synthesis says what it reserved and what the budget held then.
    for e in timeline.events().iter().filter(|e| e["event"] == "synth_start") {
        let (reserved, used) = (e["reserved"].as_u64().unwrap(), e["budget_used"].as_u64().unwrap());
        assert!(reserved > 0 && reserved <= used && used <= e["budget"].as_u64().unwrap(), "{e}");
        assert_eq!(e["budget"].as_u64(), Some(cfg_budget));
    }
    peak_partitions_held(&timeline)
}

#[test]
fn witness_partitions_give_back_the_bytes_of_a_b_c() {
    // One and a half partitions: one partition at a time while each holds
    // a/b/c, more once they stop at their witness.
    let peak = witness_partitions_held(|one| one / 2, 40);
    assert!(peak > 1, "witness partitions held at once: {peak}");
}

#[test]
fn partitions_that_will_stop_at_their_witness_reserve_only_its_bytes() {
    // A sixteenth more than one partition with a/b/c: reserving that for
    // every synthesis, a second partition could never start beside a
    // witness waiting for the device (a witness is a fifth of a partition
    // here); reserving the witness's bytes, several fit.
    let peak = witness_partitions_held(|one| one / 16, 41);
    assert!(peak > 1, "witness partitions held at once: {peak}");
}

#[test]
fn partitions_queued_before_the_recording_was_ready_reserve_only_a_witness() {
    // A thread per partition: all eight are taken at once, before the first
    // has recorded, and wait for bytes. Had each kept the whole partition's
    // bytes it asked for then, they would have run one at a time (three
    // SnapDeals partitions at once on the H200 where twelve fit).
    let peak = witness_partitions_held_with(|one| one / 16, 42, 8);
    assert!(peak > 1, "witness partitions held at once: {peak}");
}

/// A quick device that takes witnesses, for engines that record.
fn witness_taking() -> Vec<Arc<dyn ProveBackend>> {
    vec![Arc::new(WitnessTaking::new(std::time::Duration::from_millis(1)))]
}

#[test]
fn a_partition_admitted_before_its_recording_loaded_gives_a_b_c_back_as_it_claims_it() {
    let (path, params) = params();
    let dir = tempfile::tempdir().unwrap();
    let recorder = Config { backends: Some(witness_taking()), ..sequential(Some(dir.path().to_path_buf())) };
    Engine::new(recorder).unwrap().submit(job(path, 1, 60).0).unwrap().wait().unwrap();

    // A fresh engine finds the recording's file: its first partition is
    // admitted before the file is loaded, with a whole partition's bytes.
    let timeline = Buf::default();
    let mut cfg = Config { backends: Some(witness_taking()), ..sequential(Some(dir.path().to_path_buf())) };
    cfg.timeline = Some(Box::new(timeline.clone()));
    let engine = Engine::new(cfg).unwrap();
    let (j, inputs) = job(path, 3, 61);
    let r = engine.submit(j).unwrap().wait().unwrap();
    assert_verifies(&r.proofs, &inputs);
    assert!(only_recording(&engine).outcome.starts_with("loaded from"), "{:?}", engine.recordings());
    let events = timeline.events();
    let of = |name: &str| -> Vec<serde_json::Value> {
        let mut v: Vec<_> = events.iter().filter(|e| e["event"] == name).cloned().collect();
        v.sort_by_key(|e| e["t_ms"].as_f64().map(|t| (t * 1e3) as u64));
        v
    };
    let (starts, ends) = (of("synth_start"), of("synth_end"));
    assert_eq!((starts.len(), ends.len()), (3, 3), "{events:?}");
    let one = Engine::partition_bytes(params);
    assert_eq!(starts[0]["reserved"].as_u64(), Some(one), "{events:?}");
    let first = &starts[0]["partitions"];
    let end = ends.iter().find(|e| &e["partitions"] == first).unwrap();
    let released = end["released_at_claim"].as_u64().unwrap();
    assert!(released > 0 && released < one, "{end}");
    // The partitions after it reserve only what it kept: a witness.
    for (start, end) in starts[1..].iter().zip(&ends[1..]) {
        assert_eq!(start["reserved"].as_u64(), Some(one - released), "{start}");
        assert_eq!(end["released_at_claim"].as_u64(), Some(0), "{end}");
    }
}

#[test]
fn a_loaded_recording_is_reserved_before_the_partitions_waiting_for_it() {
    let (path, params) = params();
    let dir = tempfile::tempdir().unwrap();
    // The first engine records and saves; its second partition shows a witness's bytes.
    let timeline = Buf::default();
    let mut cfg = Config { backends: Some(witness_taking()), ..sequential(Some(dir.path().to_path_buf())) };
    cfg.timeline = Some(Box::new(timeline.clone()));
    Engine::new(cfg).unwrap().submit(job(path, 2, 62).0).unwrap().wait().unwrap();
    let witness = timeline.events().iter().filter(|e| e["event"] == "synth_start").filter_map(|e| e["reserved"].as_u64()).min().unwrap();
    let recording = RecordedShape::record(Workload::MulChain.circuit::<Scalar>(SIZE, 0).unwrap()).unwrap().0;
    let file_len = std::fs::metadata(path).unwrap().len();
    let one = Engine::partition_bytes(params);

    // Room for the parameters, the recording, the partition that loads it
    // and seven witnesses, and fifteen partitions waiting for the load: as
    // soon as the recording is ready they fill the budget, so a recording
    // reserved only after its partition's synthesis found no room and was
    // dropped; reserved as it is published, it stays. (The test circuit's
    // witness pass is too short for the waiting partitions to win that
    // race here; a 32 GiB PoRep partition's 40 s pass lost it on the H200.)
    let mut cfg = Config { backends: Some(witness_taking()), synthesis_workers: 16, ..sequential(Some(dir.path().to_path_buf())) };
    cfg.memory_budget = file_len + recording.heap_bytes() as u64 + one + 7 * witness;
    let engine = Engine::new(cfg).unwrap();
    let (j, inputs) = job(path, 16, 63);
    let r = engine.submit(j).unwrap().wait().unwrap();
    assert_verifies(&r.proofs, &inputs);
    assert!(only_recording(&engine).outcome.starts_with("loaded from"), "{:?}", engine.recordings());
    assert_eq!(r.timings.stage("synth_classic_ms"), None, "{:?}", r.timings.stages);
}

#[test]
fn bases_the_host_dropped_give_their_budget_to_partitions() {
    let (path, params) = params();
    let file_len = std::fs::metadata(path).unwrap().len();
    let one = Engine::partition_bytes(params);
    // Room for the file and one and a half partitions: one partition at a
    // time while the host holds the bases, more once it does not.
    let timeline = Buf::default();
    let holding = Holding::slow(std::time::Duration::from_millis(40));
    let backends: Vec<Arc<dyn ProveBackend>> = vec![Arc::new(holding)];
    let mut cfg = Config { backends: Some(backends), synthesis: SynthesisMode::Classic, ..config(1) };
    cfg.memory_budget = file_len + one + one / 2;
    cfg.timeline = Some(Box::new(timeline.clone()));
    let engine = Engine::new(cfg).unwrap();
    let (j, inputs) = job(path, 8, 52);
    let r = engine.submit(j).unwrap().wait().unwrap();
    assert_verifies(&r.proofs, &inputs);
    let peak = peak_partitions_held(&timeline);
    assert!(peak > 1, "partitions held at once: {peak}");
}

#[test]
fn the_memory_budget_bounds_partitions_in_flight() {
    let (path, params) = params();
    let file_len = std::fs::metadata(path).unwrap().len();
    let timeline = Buf::default();
    let mut cfg = config(1);
    // Room for the parameters and one partition, not two.
    let one = Engine::partition_bytes(params);
    cfg.memory_budget = file_len + one + one / 2;
    cfg.timeline = Some(Box::new(timeline.clone()));
    let engine = Engine::new(cfg).unwrap();
    let handles: Vec<_> = (0..3).map(|i| engine.submit(job(path, 2, 30 + i).0).unwrap()).collect();
    for h in handles {
        h.wait().unwrap();
    }
    let peak = peak_partitions_held(&timeline);
    assert_eq!(peak, 1, "partitions held at once");
}

#[test]
fn without_room_for_a_recording_synthesis_goes_classic() {
    let (path, params) = params();
    let file_len = std::fs::metadata(path).unwrap().len();
    // Room for the parameters and exactly one partition: none for a recording.
    let engine =
        Engine::new(Config { memory_budget: file_len + Engine::partition_bytes(params), ..sequential(None) })
            .unwrap();
    let (j, inputs) = job(path, 3, 15);
    let r = engine.submit(j).unwrap().wait().unwrap();
    assert_verifies(&r.proofs, &inputs);
    assert!(only_recording(&engine).outcome.starts_with("dropped"), "{:?}", engine.recordings());
    assert!(r.timings.stage("synth_classic_ms").is_some(), "{:?}", r.timings.stages);
    assert_eq!(r.timings.stage("synth_witness_ms"), None, "{:?}", r.timings.stages);
}

#[test]
fn a_job_that_can_never_fit_is_rejected_with_the_bytes_it_needs() {
    let (path, _) = params();
    let mut cfg = config(1);
    cfg.memory_budget = std::fs::metadata(path).unwrap().len() + 1000;
    let engine = Engine::new(cfg).unwrap();
    match engine.submit(job(path, 1, 40).0).unwrap().wait() {
        Err(EngineError::TooLarge { needed, budget }) => assert!(needed > budget),
        other => panic!("expected TooLarge, got {other:?}"),
    }
}

#[test]
fn a_budget_for_one_parameter_file_evicts_the_one_no_job_holds() {
    let (path, params) = params();
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copy.params");
    std::fs::copy(path, &copy).unwrap();
    let file_len = std::fs::metadata(path).unwrap().len();
    let one = Engine::partition_bytes(params);
    // Room for one file and one partition: the second file fits only once
    // the first is evicted (a budget that could not evict fails it TooLarge).
    let cfg = Config { memory_budget: file_len + one + one / 2, synthesis: SynthesisMode::Classic, ..config(1) };
    let engine = Engine::new(cfg).unwrap();
    for (i, p) in [path, &copy, path].into_iter().enumerate() {
        let (j, inputs) = job(p, 1, 70 + i as u64);
        let r = engine.submit(j).unwrap().wait().unwrap_or_else(|e| panic!("job {i} on {}: {e}", p.display()));
        assert_verifies(&r.proofs, &inputs);
        assert!(r.timings.srs_ms > 0.0, "job {i}: the other file was evicted, so this one loads again");
    }
}

#[test]
fn eviction_is_refused_while_a_job_uses_the_parameters_and_returns_their_bytes_after() {
    let (path, _) = params();
    let file_len = std::fs::metadata(path).unwrap().len();
    let engine = Engine::new(config(1)).unwrap();
    assert_eq!(engine.evict(path).unwrap(), None, "nothing is resident yet");
    engine.preload(path).unwrap();
    let resident = engine.resident_params();
    assert_eq!(resident.len(), 1);
    assert_eq!((resident[0].bytes, resident[0].loaded, resident[0].jobs), (file_len, true, 0));
    // A job held inside synthesis until the test lets it go.
    let (release, held) = std::sync::mpsc::channel::<()>();
    let (entered, started) = std::sync::mpsc::channel::<()>();
    let blocked = cuzk_pipeline::Job::new(path).partition_with(move || {
        let _ = entered.send(());
        let _ = held.recv();
        cuzk_synth::ProvingAssignment::synthesize(Workload::MulChain.circuit::<Scalar>(crate::SIZE, 1)?)
    });
    let handle = engine.submit(blocked).unwrap();
    started.recv().unwrap();
    assert!(engine.started(handle.id()));
    assert_eq!(engine.resident_params()[0].jobs, 1);
    let refused = engine.evict(path).unwrap_err();
    assert!(matches!(&refused, EngineError::InUse { why, .. } if why.contains("1 unfinished job")), "{refused}");
    let used_while_held = engine.memory_in_use();
    assert!(used_while_held > file_len);
    assert!(engine.cancel(handle.id()), "the job was in flight");
    assert!(!engine.cancel(handle.id()), "a second cancel finds it ended");
    assert!(!engine.started(handle.id()));
    release.send(()).unwrap();
    assert!(matches!(handle.wait(), Err(EngineError::Cancelled)));
    // The cancelled partition's bytes return once it is freed.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while engine.memory_in_use() != file_len && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert_eq!(engine.memory_in_use(), file_len, "only the parameters stay reserved");
    assert_eq!(engine.evict(path).unwrap(), Some(file_len));
    assert_eq!(engine.memory_in_use(), 0);
    assert!(engine.resident_params().is_empty());
    let (j, inputs) = crate::job(path, 1, 77);
    assert_verifies(&engine.submit(j).unwrap().wait().unwrap().proofs, &inputs);
}
