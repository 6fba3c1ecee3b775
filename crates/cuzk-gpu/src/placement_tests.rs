use super::*;
use proptest::prelude::*;

const GB: u64 = 1_000_000_000;

/// The 32 GiB PoRep partition's SRS: a 2^27 domain, 130.17 M private
/// variables, A over every variable, B over ~32.9 M (47.4 GB of bases).
fn porep_32g() -> SrsSizes {
    SrsSizes { ic: 329, h: (1 << 27) - 1, l: 130_172_000, a: 130_172_329, b: 32_900_000 }
}

/// A 2^23 SRS (a 512 MiB-sector-sized circuit).
fn porep_512m() -> SrsSizes {
    SrsSizes { ic: 329, h: (1 << 23) - 1, l: 8_000_000, a: 8_000_329, b: 2_000_000 }
}

/// Cards as cudaMemGetInfo reports them (total bytes), with ~0.6 GB taken
/// by the CUDA context.
const CARDS: [(&str, u64); 6] = [
    ("16 GB (RTX 5070 Ti)", 17_100_000_000),
    ("24 GB (RTX 4090)", 25_400_000_000),
    ("32 GB (RTX 5090)", 34_200_000_000),
    ("48 GB (L40S)", 51_000_000_000),
    ("80 GB (H100)", 85_500_000_000),
    ("141 GB (H200)", 150_000_000_000),
];

fn free_of(total: u64) -> u64 {
    total - 600_000_000
}

#[test]
fn the_32_gib_porep_is_resident_on_an_h200_and_partly_streamed_on_an_h100() {
    let sizes = porep_32g();
    let all = QuerySet::ALL.bytes(&sizes);
    assert!(all > 47 * GB && all < 48 * GB, "{all}");

    let h200 = plan(&sizes, free_of(CARDS[5].1), CARDS[5].1, 0).unwrap();
    assert_eq!(h200.resident, QuerySet::ALL, "{h200}");

    // The all-resident placement the H100 used to get does not leave one
    // call its working set: its first proof failed out of device memory.
    let (_, h100_total) = CARDS[4];
    let everything = WorkingSet::of(&sizes, h100_total, QuerySet::ALL, QuotientLayout::Overlapped).total() + all;
    assert!(everything > free_of(h100_total), "{everything}");
    let h100 = plan(&sizes, free_of(h100_total), h100_total, 0).unwrap();
    // B in G2 is streamed (the H100 run of 2026-12-07 streamed B in G1
    // too: the twiddles of the inverse transforms took 2.1 GB more then).
    assert_eq!(h100.resident, QuerySet::of(&[Query::H, Query::L, Query::A, Query::BG1]), "{h100}");
    assert_eq!(h100.quotient, QuotientLayout::Overlapped, "{h100}");
    assert_eq!(h100.streamed_bytes, Query::BG2.bytes(&sizes));
    assert!(h100.peak() <= h100.free, "{h100}");
}

/// The 32 GiB WindowPoSt partition's SRS as the H100 run of 2026-12-07
/// placed it (60.8 GB: 93.4 M B bases).
fn wpost_32g() -> SrsSizes {
    SrsSizes { ic: 2, h: (1 << 27) - 1, l: 125_300_000, a: 93_528_143, b: 93_352_947 }
}

#[test]
fn one_resident_b_query_counts_the_b_scalars_it_uploads() {
    let sizes = wpost_32g();
    let total = 85_017_493_504;
    let one = QuerySet::of(&[Query::H, Query::A, Query::BG2]);
    for layout in QuotientLayout::ALL {
        assert_eq!(WorkingSet::of(&sizes, total, one, layout).b_scalars, 32 * sizes.b as u64);
        assert_eq!(WorkingSet::of(&sizes, total, QuerySet::of(&[Query::H, Query::A]), layout).b_scalars, 0);
    }
    // That placement went past an H100's memory when its plan left them
    // out; counted, it fits only because the twiddles of the inverse
    // transforms (2.1 GB) are gone since.
    let free = 84_400_000_000;
    let p = plan(&sizes, free, total, 0).unwrap();
    assert!(p.peak() <= p.free, "{p}");
    let counted = forced(&sizes, free, total, one, QuotientLayout::Overlapped);
    let uncounted = counted.peak() - counted.working_set.b_scalars + counted.working_set.twiddles;
    assert!(counted.peak() <= free && uncounted + counted.working_set.b_scalars > free, "{counted}");
}

#[test]
fn a_card_without_room_for_one_call_gets_a_typed_error_naming_the_need() {
    let sizes = porep_32g();
    // A 12 GB card (RTX 3060): the witness beside a and b alone is 12.9 GB.
    let total = 12_800_000_000;
    match plan(&sizes, free_of(total), total, 0) {
        Err(GpuError::DeviceTooSmall { domain, needed, free, total: t }) => {
            assert_eq!((domain, free, t), (1 << 27, free_of(total), total));
            assert!(needed > free, "{needed}");
        }
        other => panic!("expected DeviceTooSmall, got {other:?}"),
    }
    let message = plan(&sizes, 10 * GB, 16 * GB, 0).unwrap_err().to_string();
    assert!(message.contains("device too small") && message.contains("134217728"), "{message}");
}

#[test]
fn a_16_gb_card_proves_the_32_gib_porep_with_the_spilled_quotient_and_the_shape_in_host_memory() {
    let sizes = porep_32g();
    let (name, total) = CARDS[0];
    let p = plan(&sizes, free_of(total), total, 0).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!((p.quotient, p.shape_on_host), (QuotientLayout::Spilled, true), "{name}: {p}");
    assert!(p.peak() <= p.free, "{name}: {p}");
    // Neither the lean layout nor a shape on the device would fit.
    for worse in [
        WorkingSet::of(&sizes, total, p.resident, QuotientLayout::Lean).with_shape_on_host(),
        WorkingSet::of(&sizes, total, p.resident, QuotientLayout::Spilled),
    ] {
        assert!(p.resident_bytes + worse.total() > p.free, "{name}: {worse:?}");
    }
    // At the default chunk, the witness beside a and b is the peak: the
    // twiddles wait for the transforms, which have two buffers.
    let n = 1u64 << 27;
    let ws = p.with_chunk(&sizes, DEFAULT_CHUNK_BASES).working_set;
    assert_eq!(ws.shape, 0);
    assert_eq!(ws.total(), ws.reserve + ws.msm_reserve + ws.witness + 64 * n);
    assert!(ws.total() < 15_500_000_000, "{}", ws.total());
    assert!(p.to_string().contains("quotient spilled, shape in host memory"), "{p}");
}

#[test]
fn cards_of_24_to_48_gb_prove_the_32_gib_porep_with_the_lean_quotient() {
    let sizes = porep_32g();
    for (name, total) in &CARDS[1..4] {
        let p = plan(&sizes, free_of(*total), *total, 0).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(p.quotient, QuotientLayout::Lean, "{name}: {p}");
        assert!(p.peak() <= p.free, "{name}: {p}");
        // Its working set is what the overlapped one is not: small enough.
        let overlapped = WorkingSet::of(&sizes, *total, QuerySet::NONE, QuotientLayout::Overlapped).total();
        assert!(overlapped > p.free || p.resident != QuerySet::NONE, "{name}: {overlapped} {p}");
    }
    // Lean, the phases follow one another: the shape's products (the
    // witness beside a and b) or the three transform buffers are the peak.
    let lean = WorkingSet::of(&sizes, CARDS[1].1, QuerySet::NONE, QuotientLayout::Lean);
    let n = 1u64 << 27;
    let always = lean.reserve + lean.msm_reserve + lean.shape + lean.twiddles;
    assert_eq!(lean.total(), always + (lean.witness + 64 * n).max(96 * n));
    assert!(lean.total() < 25 * GB, "{}", lean.total());
}

#[test]
fn a_48_gb_card_streams_most_of_the_32_gib_srs_and_smaller_srss_stay_resident() {
    let (_, total) = CARDS[3];
    let p = plan(&porep_32g(), free_of(total), total, 0).unwrap();
    assert!(p.resident != QuerySet::ALL && p.peak() <= p.free, "{p}");
    for (name, total) in CARDS {
        let p = plan(&porep_512m(), free_of(total), total, 0).unwrap();
        assert_eq!(p.resident, QuerySet::ALL, "{name}: {p}");
    }
}

#[test]
fn spare_memory_makes_the_streamed_chunks_larger() {
    let sizes = porep_32g();
    // A 24 GB card streams everything; the chunks take the room its lean
    // working set leaves, in whole words, at least the default.
    let (_, total) = CARDS[1];
    let p = plan(&sizes, free_of(total), total, 0).unwrap();
    let at_default = p.with_chunk(&sizes, DEFAULT_CHUNK_BASES);
    assert!(p.stream_chunk() > 4 * DEFAULT_CHUNK_BASES && p.stream_chunk() % 64 == 0, "{p}");
    // A quarter of the spare stays free.
    assert!(p.peak() <= p.free - (p.free - at_default.peak()) / 4, "{p}");
    // The next word would not fit.
    let next = p.with_chunk(&sizes, p.stream_chunk() + 64);
    assert!(next.peak() > p.free - (p.free - at_default.peak()) / 4, "{p}");
    // Never larger than the longest streamed query.
    let big = plan(&porep_512m(), 24 * GB, 25 * GB, 19 * GB).unwrap();
    let longest = big.resident.complement().iter().map(|q| match q {
        Query::H => sizes_of_512m().h,
        Query::L => sizes_of_512m().l,
        Query::A => sizes_of_512m().a,
        Query::BG1 | Query::BG2 => sizes_of_512m().b,
    });
    if let Some(longest) = longest.max() {
        assert!(big.stream_chunk() <= (longest as u64).div_ceil(64) * 64, "{big}");
    }
}

fn sizes_of_512m() -> SrsSizes {
    porep_512m()
}

#[test]
fn memory_held_for_another_srs_leaves_less_resident() {
    let sizes = porep_32g();
    let total = CARDS[5].1;
    let alone = plan(&sizes, free_of(total), total, 0).unwrap();
    let beside = plan(&sizes, free_of(total), total, 60 * GB).unwrap();
    assert!(beside.resident_bytes < alone.resident_bytes, "{alone} / {beside}");
    assert!(beside.peak() + 60 * GB <= beside.free, "{beside}");
}

#[test]
fn the_plan_names_what_is_resident_and_what_is_streamed() {
    let (_, total) = CARDS[4];
    let text = plan(&porep_32g(), free_of(total), total, 0).unwrap().to_string();
    assert!(text.starts_with("resident h,l,a,b_g1 (41.04 GB), streamed b_g2 (6.32 GB per call, "), "{text}");
    assert!(text.contains(" bases per chunk), quotient overlapped, shape on the device"), "{text}");
    assert_eq!(QuerySet::NONE.to_string(), "none");
    assert_eq!(QuerySet::from_bits(0xff), QuerySet::ALL);
}

fn sizes() -> impl Strategy<Value = SrsSizes> {
    (8u32..=28, 1usize..=400, 0.0f64..=1.0, 0.0f64..=1.0, 0.0f64..=1.0).prop_map(|(log_n, ic, lf, af, bf)| {
        let n = 1usize << log_n;
        let l = ((n - ic.min(n - 1)) as f64 * lf) as usize;
        let a = (((ic + l) as f64) * af) as usize;
        let b = (((ic + l) as f64) * bf) as usize;
        SrsSizes { ic, h: n - 1, l, a, b }
    })
}

proptest! {
    /// Whatever the card, the SRS and the memory held for others: a plan's
    /// resident bases and one call's working set fit in the free memory
    /// (the working set includes the reserve), the bytes add up, and a
    /// refusal happens only when even streaming everything would not fit.
    #[test]
    fn a_plan_never_exceeds_the_free_memory(
        sizes in sizes(),
        total in 2 * GB..200 * GB,
        used in 0.0f64..=1.0,
        held in 0u64..40 * GB,
    ) {
        let free = (total as f64 * (1.0 - used)) as u64;
        match plan(&sizes, free, total, held) {
            Ok(p) => {
                prop_assert!(p.peak() + held <= free, "{}", p);
                prop_assert!(p.working_set.reserve >= 2 << 30);
                prop_assert_eq!(p.resident_bytes, p.resident.bytes(&sizes));
                prop_assert_eq!(p.resident_bytes + p.streamed_bytes, QuerySet::ALL.bytes(&sizes));
                let f = forced(&sizes, free, total, p.resident, p.quotient);
                let f = if p.shape_on_host { f.with_shape_on_host() } else { f };
                prop_assert_eq!(p, f.with_chunk(&sizes, p.stream_chunk()));
                // The shape leaves the device only when nothing fits with it there.
                if p.shape_on_host {
                    let least = WorkingSet::of(&sizes, total, QuerySet::NONE, QuotientLayout::Spilled);
                    prop_assert!(least.total() + held > free);
                }
                // Chunks grow into spare memory only.
                prop_assert!(p.stream_chunk() >= DEFAULT_CHUNK_BASES || p.resident == QuerySet::ALL);
                prop_assert!(p.stream_chunk() == DEFAULT_CHUNK_BASES || f.peak() + held < free);
                // Everything resident and overlapped whenever that fits.
                let all = QuerySet::ALL.bytes(&sizes)
                    + WorkingSet::of(&sizes, total, QuerySet::ALL, QuotientLayout::Overlapped).total();
                if all + held <= free {
                    prop_assert_eq!(p.resident, QuerySet::ALL);
                    prop_assert_eq!(p.quotient, QuotientLayout::Overlapped);
                }
                // Each layout's working set is never larger than the one
                // before it, nor a shape in host memory than on the device.
                for set in [QuerySet::NONE, p.resident] {
                    let ws = QuotientLayout::ALL.map(|l| WorkingSet::of(&sizes, total, set, l));
                    prop_assert!(ws[1].total() <= ws[0].total() && ws[2].total() <= ws[1].total());
                    for w in ws {
                        prop_assert!(w.with_shape_on_host().total() <= w.total());
                    }
                }
            }
            Err(GpuError::DeviceTooSmall { needed, .. }) => {
                prop_assert!(needed > free);
                let least = WorkingSet::of(&sizes, total, QuerySet::NONE, QuotientLayout::Spilled);
                prop_assert_eq!(needed, least.with_shape_on_host().total() + held);
            }
            Err(e) => prop_assert!(false, "unexpected error {}", e),
        }
    }
}
