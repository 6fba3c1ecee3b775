use cuzk_ffi::hooks::ffi as hooks;
use crate::spmv::{check_witness, matrix};
use crate::GpuError;
use blstrs::Scalar;
use cuzk_ffi::cast::{as_limbs, as_limbs_mut};
use cuzk_ffi::ffi::R1csMatrix;
use cuzk_synth::{RecordedShape, Witness};
use ff::Field;

/// The kernels' checks and row code run on the CPU through the bridge's
/// host hook, for tests without a GPU: equal to
/// [`DeviceShape::evaluate`](crate::DeviceShape::evaluate) by construction
/// (one source), and compared with cuzk-synth's evaluation.
pub fn evaluate_on_host(shape: &RecordedShape<Scalar>, w: &Witness<Scalar>) -> Result<[Vec<Scalar>; 3], GpuError> {
    check_witness(shape.num_inputs(), shape.num_aux(), w)?;
    evaluate(
        [&matrix(shape.a()), &matrix(shape.b()), &matrix(shape.c())],
        shape.coefficients(),
        &w.inputs,
        &w.aux,
        shape.num_constraints(),
    )
}

/// [`evaluate_on_host`] on raw matrices, unchecked on the Rust side, so
/// tests can hand the C++ checks malformed shapes; a, b and c have as many
/// rows as `a.row_ptr` says.
pub fn evaluate_matrices_on_host(
    [a, b, c]: [&R1csMatrix<'_>; 3],
    coefficients: &[Scalar],
    inputs: &[Scalar],
    aux: &[Scalar],
) -> Result<[Vec<Scalar>; 3], GpuError> {
    evaluate([a, b, c], coefficients, inputs, aux, a.row_ptr.len().saturating_sub(1))
}

fn evaluate(
    [a, b, c]: [&R1csMatrix<'_>; 3],
    coefficients: &[Scalar],
    inputs: &[Scalar],
    aux: &[Scalar],
    rows: usize,
) -> Result<[Vec<Scalar>; 3], GpuError> {
    let mut abc = vec![Scalar::ZERO; 3 * rows];
    hooks::r1cs_evaluate_host(
        a,
        b,
        c,
        as_limbs(coefficients),
        as_limbs(inputs),
        as_limbs(aux),
        as_limbs_mut(&mut abc),
    )?;
    let c = abc.split_off(2 * rows);
    let b = abc.split_off(rows);
    Ok([abc, b, c])
}
