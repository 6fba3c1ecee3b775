use crate::spmv::DeviceShape;
use crate::placement::SrsSizes;
use crate::srs::GpuSrs;
use crate::{Device, GpuError};
use blstrs::Scalar;
use cuzk_ffi::cast::as_limbs;
use cuzk_ffi::ffi;
use cuzk_groth16::sizes::{Needs as RuleNeeds, QueryLengths};
use cuzk_groth16::Proof;
use cuzk_synth::{DensityTracker, ProvingAssignment, Witness};

/// Milliseconds per stage of one host-function call (DESIGN §4.6).
pub use cuzk_ffi::ffi::Groth16Timings as HostTimings;

/// The stages of one call by the names of the `CUZK_TIMING:` line, in the
/// order they are printed (`pre_destructor_ms` spans the call; `h2d_ms`
/// and `h2d_mb` are the streamed bases' copies, which overlap the rest).
pub fn stages(t: &HostTimings) -> [(&'static str, f64); 12] {
    [
        ("pre_prep_ms", t.pre_prep_ms),
        ("split_alloc_ms", t.split_alloc_ms),
        ("prep_msm_ms", t.prep_msm_ms),
        ("ntt_msm_h_ms", t.ntt_msm_h_ms),
        ("prep_wait_ms", t.prep_wait_ms),
        ("batch_add_ms", t.batch_add_ms),
        ("tail_msm_ms", t.tail_msm_ms),
        ("b_g2_msm_ms", t.b_g2_msm_ms),
        ("epilogue_ms", t.epilogue_ms),
        ("pre_destructor_ms", t.pre_destructor_ms),
        ("h2d_ms", t.h2d_ms),
        ("h2d_mb", t.h2d_mb),
    ]
}

/// Proves each assignment with its `(r, s)` on `device`, with the SRS
/// uploaded there; the proofs equal the CPU backend's for the same r and s,
/// byte for byte. With `timing`, the host function also prints one
/// `CUZK_TIMING:` line to stderr; the same figures are returned either way.
pub fn prove(
    device: &Device,
    srs: &GpuSrs,
    assignments: &[ProvingAssignment<Scalar>],
    randomness: &[(Scalar, Scalar)],
    timing: bool,
) -> Result<(Vec<Proof>, HostTimings), GpuError> {
    check_batch(device, srs, assignments.len(), randomness.len())?;
    for pa in assignments {
        check_sizes(&srs.sizes(), pa)?;
    }
    let circuits: Vec<ffi::Groth16Circuit<'_>> =
        assignments.iter().zip(randomness).map(|(pa, rs)| circuit(pa, rs)).collect();
    let mut bytes = vec![0u8; Proof::SIZE * assignments.len()];
    let timings = ffi::generate_groth16_proofs_c(device.id(), srs.raw(), &circuits, timing, &mut bytes)?;
    Ok((read_proofs(&bytes)?, timings))
}

/// As [`prove`] for witnesses of one recorded shape resident on the same
/// device: a, b, c are computed there from each witness (the only upload of
/// the quotient), so the CPU runs only witness synthesis. The proofs equal
/// those of [`prove`] with the assignments `RecordedShape::evaluate` makes,
/// for the same r and s; a witness that fails a constraint is
/// `UnsatisfiedConstraint` naming the row the CPU names.
pub fn prove_recorded(
    device: &Device,
    srs: &GpuSrs,
    shape: &DeviceShape,
    witnesses: &[Witness<Scalar>],
    randomness: &[(Scalar, Scalar)],
    timing: bool,
) -> Result<(Vec<Proof>, HostTimings), GpuError> {
    check_batch(device, srs, witnesses.len(), randomness.len())?;
    if shape.device_id() != device.id() {
        return Err(GpuError::InvalidInput(format!(
            "the shape was uploaded for device {}, not device {}",
            shape.device_id(),
            device.id()
        )));
    }
    let [a_aux, b_input, b_aux] = shape.densities();
    check_needs(
        &srs.sizes(),
        &Needs {
            constraints: shape.num_constraints(),
            inputs: shape.num_inputs(),
            aux: shape.num_aux(),
            densities: [a_aux, b_input, b_aux],
        },
    )?;
    for w in witnesses {
        shape.check_witness(w)?;
    }
    let circuits: Vec<ffi::Groth16Circuit<'_>> = witnesses
        .iter()
        .zip(randomness)
        .map(|(w, (r, s))| ffi::Groth16Circuit {
            a: &[],
            b: &[],
            input: as_limbs(&w.inputs),
            aux: as_limbs(&w.aux),
            a_aux_density: a_aux.words(),
            b_input_density: b_input.words(),
            b_aux_density: b_aux.words(),
            r: limbs4(r),
            s: limbs4(s),
        })
        .collect();
    let mut bytes = vec![0u8; Proof::SIZE * witnesses.len()];
    let timings =
        ffi::generate_groth16_proofs_recorded_c(device.id(), srs.raw(), shape.raw(), &circuits, timing, &mut bytes)?;
    Ok((read_proofs(&bytes)?, timings))
}

/// The checks every batch passes: the SRS on this device, one (r, s) per proof.
fn check_batch(device: &Device, srs: &GpuSrs, proofs: usize, pairs: usize) -> Result<(), GpuError> {
    if device.id() != srs.device_id() {
        return Err(GpuError::InvalidInput(format!(
            "the SRS was uploaded for device {}, not device {}",
            srs.device_id(),
            device.id()
        )));
    }
    if proofs != pairs {
        return Err(GpuError::InvalidInput(format!("{proofs} assignments but {pairs} (r, s) pairs")));
    }
    Ok(())
}

fn read_proofs(bytes: &[u8]) -> Result<Vec<Proof>, GpuError> {
    Proof::read_many(bytes).map_err(|e| GpuError::Host(format!("the host function wrote an undecodable proof: {e}")))
}

fn limbs4(x: &Scalar) -> [u64; 4] {
    as_limbs(std::slice::from_ref(x)).try_into().expect("a scalar is 4 limbs")
}

fn circuit<'a>(pa: &'a ProvingAssignment<Scalar>, (r, s): &(Scalar, Scalar)) -> ffi::Groth16Circuit<'a> {
    ffi::Groth16Circuit {
        a: as_limbs(&pa.a),
        b: as_limbs(&pa.b),
        input: as_limbs(&pa.input_assignment),
        aux: as_limbs(&pa.aux_assignment),
        a_aux_density: pa.a_aux_density.words(),
        b_input_density: pa.b_input_density.words(),
        b_aux_density: pa.b_aux_density.words(),
        r: limbs4(r),
        s: limbs4(s),
    }
}

/// What one circuit needs of the SRS, with the bitsets the device reads.
struct Needs<'a> {
    constraints: usize,
    inputs: usize,
    aux: usize,
    /// Aux used in A, inputs used in B, aux used in B.
    densities: [&'a DensityTracker; 3],
}

/// Checks every query size of the SRS against what the assignment needs by
/// the rule the CPU prover uses ([`cuzk_groth16::sizes`]), naming both sizes
/// when they differ.
pub fn check_sizes(sizes: &SrsSizes, pa: &ProvingAssignment<Scalar>) -> Result<(), GpuError> {
    if pa.b.len() != pa.a.len() {
        return Err(GpuError::InvalidInput(format!("a, b have {}, {} evaluations", pa.a.len(), pa.b.len())));
    }
    check_needs(
        sizes,
        &Needs {
            constraints: pa.num_constraints(),
            inputs: pa.num_inputs(),
            aux: pa.num_aux(),
            densities: [&pa.a_aux_density, &pa.b_input_density, &pa.b_aux_density],
        },
    )
}

/// The shared size rule, then what the device alone relies on: bitsets as
/// long as the variables they describe (the host function reads them word
/// by word with no length of its own).
fn check_needs(sizes: &SrsSizes, needs: &Needs<'_>) -> Result<(), GpuError> {
    let [a_aux, b_input, b_aux] = needs.densities;
    let lengths = QueryLengths { ic: sizes.ic, h: sizes.h, l: sizes.l, a: sizes.a, b_g1: sizes.b, b_g2: sizes.b };
    let rule = RuleNeeds {
        constraints: needs.constraints,
        inputs: needs.inputs,
        aux: needs.aux,
        a_aux_used: a_aux.count_ones(),
        b_used: b_input.count_ones() + b_aux.count_ones(),
    };
    cuzk_groth16::sizes::check(&lengths, &rule).map_err(|e| match e {
        cuzk_groth16::Error::Mismatch { what, have, need } => GpuError::SrsMismatch { what, have, need },
        other => GpuError::InvalidInput(other.to_string()),
    })?;
    let densities = [
        ("a_aux_density", a_aux.len(), needs.aux),
        ("b_aux_density", b_aux.len(), needs.aux),
        ("b_input_density", b_input.len(), needs.inputs),
    ];
    for (what, len, vars) in densities {
        if len != vars {
            return Err(GpuError::InvalidInput(format!("{what} tracks {len} variables, the assignment has {vars}")));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use cuzk_synth::DensityTracker;
    use ff::Field;

    fn assignment(constraints: usize, inputs: usize, aux: usize) -> ProvingAssignment<Scalar> {
        let mut pa = ProvingAssignment::new();
        pa.a = vec![Scalar::ZERO; constraints];
        pa.b = pa.a.clone();
        pa.c = pa.a.clone();
        pa.input_assignment = vec![Scalar::ONE; inputs];
        pa.aux_assignment = vec![Scalar::ONE; aux];
        let full = |n| {
            let mut d = DensityTracker::new();
            for i in 0..n {
                d.add_element();
                d.inc(i);
            }
            d
        };
        pa.a_aux_density = full(aux);
        pa.b_aux_density = full(aux);
        pa.b_input_density = full(inputs);
        pa
    }

    #[test]
    fn size_mismatches_name_both_sizes() {
        let pa = assignment(5, 2, 3);
        let ok = SrsSizes { ic: 2, h: 7, l: 3, a: 5, b: 5 };
        assert_eq!(check_sizes(&ok, &pa), Ok(()));
        let cases = [
            (SrsSizes { ic: 3, ..ok }, "IC", 3, 2),
            (SrsSizes { h: 15, ..ok }, "h bases", 15, 7),
            (SrsSizes { l: 4, ..ok }, "l bases", 4, 3),
            (SrsSizes { a: 4, ..ok }, "a bases", 4, 5),
            (SrsSizes { b: 6, ..ok }, "b_g1 bases", 6, 5),
        ];
        for (sizes, prefix, have_want, need_want) in cases {
            match check_sizes(&sizes, &pa) {
                Err(GpuError::SrsMismatch { what, have, need }) => {
                    assert!(what.starts_with(prefix), "{what}");
                    assert_eq!((have, need), (have_want, need_want), "{what}");
                }
                other => panic!("expected a mismatch of {prefix}, got {other:?}"),
            }
        }
        let mut short = pa.clone();
        short.b.pop();
        assert!(matches!(check_sizes(&ok, &short), Err(GpuError::InvalidInput(_))));
    }
}
